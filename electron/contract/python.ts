/**
 * Which runtime `run_python` uses, and Full Python's managed environment. The runtime is chosen in
 * Settings (the default), per workspace (over Settings) and per chat (over both); a turn may name
 * one too (the CLI's `chat --python`), which becomes the chat's.
 */
import { z } from 'zod';
import { PYTHON_RUNTIMES, type PythonRuntimeName } from './chat-files.js';

const runtime = z.enum(PYTHON_RUNTIMES);
const sessionId = z.string().trim().min(1).max(100);

/** `python/get-runtime`: the runtime in effect (for a chat, when named) and where it comes from. */
export const GetPythonRuntimeReqSchema = z.object({ session_id: sessionId.optional() }).strict();
/** Request of `python/get-runtime`. */
export type GetPythonRuntimeReq = z.infer<typeof GetPythonRuntimeReqSchema>;

/** Full Python's environment as the user sees it. */
export interface FullPythonView {
  /** Null when Full Python can run here, else why not (no bubblewrap, no Python 3.11). */
  unavailable: string | null;
  /** Built and current. */
  installed: boolean;
  /** The lock's top-level packages this installation holds. */
  packages: string[];
  /** Every wheel (`name==version`), the lock's and the user's. */
  wheels: string[];
  /** What the user added (requirement lines). */
  added: string[];
  /** Bytes still to download before the next run can start. */
  missing_bytes: number;
}

/** Reply of `python/get-runtime`. */
export interface GetPythonRuntimeRes {
  runtime: PythonRuntimeName;
  from: 'chat' | 'workspace' | 'settings' | 'default';
  settings: PythonRuntimeName | null;
  workspace: PythonRuntimeName | null;
  chat: PythonRuntimeName | null;
  full: FullPythonView;
}

/** `python/set-runtime`: choose the runtime at one level (null: follow the level above). */
export const SetPythonRuntimeReqSchema = z
  .object({
    level: z.enum(['settings', 'workspace', 'chat']),
    session_id: sessionId.optional(),
    runtime: runtime.nullable(),
  })
  .strict()
  .refine((r) => r.level !== 'chat' || r.session_id, { message: 'session_id is needed for the chat level' });
/** Request of `python/set-runtime`. */
export type SetPythonRuntimeReq = z.infer<typeof SetPythonRuntimeReqSchema>;

/** `python/install`: build Full Python's environment now (progress as a `python` task). */
export const InstallFullPythonReqSchema = z.object({}).strict();
/** Request of `python/install`. */
export type InstallFullPythonReq = z.infer<typeof InstallFullPythonReqSchema>;

/** `python/add-packages`: add packages to Full Python (wheels only, the lock's pins kept). */
export const AddPythonPackagesReqSchema = z
  .object({ requirements: z.array(z.string().trim().min(1).max(300)).min(1).max(50) })
  .strict();
/** Request of `python/add-packages`. */
export type AddPythonPackagesReq = z.infer<typeof AddPythonPackagesReqSchema>;

/** `python/remove-packages`: forget packages the user added, by name. */
export const RemovePythonPackagesReqSchema = z
  .object({ names: z.array(z.string().trim().min(1).max(200)).min(1).max(50) })
  .strict();
/** Request of `python/remove-packages`. */
export type RemovePythonPackagesReq = z.infer<typeof RemovePythonPackagesReqSchema>;

/** A DNS name or an IPv4 address, or an IPv6 address in brackets; then an optional port (group 1). */
const HOST_FORM =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** Most hosts one chat may grant its run_python code. */
export const MAX_PYTHON_HOSTS = 50;

/**
 * One host a chat's run_python code may reach: a DNS name, an IPv4 address or an IPv6 address in
 * brackets, with an optional port (`api.example.com`, `example.com:8443`, `127.0.0.1:8080`),
 * lower-cased. A URL is refused with the form to use instead, so a grant never carries a path or
 * a scheme the gate would silently ignore.
 */
export const PythonHostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(260)
  .refine((h) => !h.includes('/'), { message: 'give a host (example.com or example.com:8443), not a URL' })
  .refine(
    (h) => {
      const m = HOST_FORM.exec(h);
      return m !== null && (m[1] === undefined || (Number(m[1]) >= 1 && Number(m[1]) <= 65535));
    },
    { message: 'is not a host name, an IP address (IPv6 in brackets) or either with :port' },
  );

/** `python/get-network`: the hosts a chat's run_python code may reach. */
export const GetPythonNetworkReqSchema = z.object({ session_id: sessionId }).strict();
/** Request of `python/get-network`. */
export type GetPythonNetworkReq = z.infer<typeof GetPythonNetworkReqSchema>;

/** `python/set-network`: replace the chat's granted hosts (an empty list: no network). */
export const SetPythonNetworkReqSchema = z
  .object({ session_id: sessionId, hosts: z.array(PythonHostSchema).max(MAX_PYTHON_HOSTS) })
  .strict();
/** Request of `python/set-network`. */
export type SetPythonNetworkReq = z.infer<typeof SetPythonNetworkReqSchema>;

/** Reply of `python/get-network` and `python/set-network`. */
export interface PythonNetworkRes {
  session_id: string;
  /** Hosts the chat's run_python code may reach over https (sorted, no duplicates); empty: none. */
  hosts: string[];
}

/** The `python/*` channels. */
export interface PythonChannels {
  'python/get-runtime': { req: GetPythonRuntimeReq; res: GetPythonRuntimeRes };
  'python/set-runtime': { req: SetPythonRuntimeReq; res: GetPythonRuntimeRes };
  'python/install': { req: InstallFullPythonReq; res: FullPythonView };
  'python/add-packages': { req: AddPythonPackagesReq; res: FullPythonView };
  'python/remove-packages': { req: RemovePythonPackagesReq; res: FullPythonView };
  'python/get-network': { req: GetPythonNetworkReq; res: PythonNetworkRes };
  'python/set-network': { req: SetPythonNetworkReq; res: PythonNetworkRes };
}

/** Request schemas of the `python/*` channels. */
export const pythonRequestSchemas = {
  'python/get-runtime': GetPythonRuntimeReqSchema,
  'python/set-runtime': SetPythonRuntimeReqSchema,
  'python/install': InstallFullPythonReqSchema,
  'python/add-packages': AddPythonPackagesReqSchema,
  'python/remove-packages': RemovePythonPackagesReqSchema,
  'python/get-network': GetPythonNetworkReqSchema,
  'python/set-network': SetPythonNetworkReqSchema,
};
