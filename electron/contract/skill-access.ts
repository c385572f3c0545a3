/**
 * The `skill-access/*` slice of the API contract: what the user lets an LLM skill have — the hosts
 * its tools may reach and the secrets its `tool_env` names. Secret values go in, never out.
 */
import { z } from 'zod';

const skillName = z.string().trim().min(1).max(200);

/** `skill-access/get`: a skill's declared hosts and secrets, with what the user granted. */
export const SkillAccessGetReqSchema = z.object({ name: skillName }).strict();
/** Request of `skill-access/get`. */
export type SkillAccessGetReq = z.infer<typeof SkillAccessGetReqSchema>;

/** `skill-access/set-grant`: grant (or take back) one host. */
export const SkillAccessSetGrantReqSchema = z
  .object({
    name: skillName,
    host: z.string().trim().min(1).max(300),
    granted: z.boolean(),
  })
  .strict();
/** Request of `skill-access/set-grant`. */
export type SkillAccessSetGrantReq = z.infer<typeof SkillAccessSetGrantReqSchema>;

/** `skill-access/set-secret`: store (or, empty, remove) one `tool_env` secret. */
export const SkillAccessSetSecretReqSchema = z
  .object({
    name: skillName,
    variable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name'),
    value: z.string().max(64 * 1024),
  })
  .strict();
/** Request of `skill-access/set-secret`. */
export type SkillAccessSetSecretReq = z.infer<typeof SkillAccessSetSecretReqSchema>;

/** One skill's access as the UI shows it (never a secret's value). */
export interface SkillAccessView {
  skill: string;
  /** The hosts the skill declares, each with whether the user granted it. */
  network: Array<{ host: string; granted: boolean }>;
  /** Granted hosts the skill does not declare (granted earlier or by hand). */
  other_grants: string[];
  /** The skill's `tool_env` names, each with whether a secret is stored. */
  tool_env: Array<{ name: string; has_secret: boolean }>;
}

/** The `skill-access/*` channels. */
export interface SkillAccessChannels {
  'skill-access/get': { req: SkillAccessGetReq; res: SkillAccessView };
  'skill-access/set-grant': { req: SkillAccessSetGrantReq; res: SkillAccessView };
  'skill-access/set-secret': { req: SkillAccessSetSecretReq; res: SkillAccessView };
}

/** Request schemas of the `skill-access/*` channels. */
export const skillAccessRequestSchemas = {
  'skill-access/get': SkillAccessGetReqSchema,
  'skill-access/set-grant': SkillAccessSetGrantReqSchema,
  'skill-access/set-secret': SkillAccessSetSecretReqSchema,
};
