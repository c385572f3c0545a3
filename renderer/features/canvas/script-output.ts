import type { StoreApi } from 'zustand/vanilla';
import type { Client } from '../../bridge/client.js';
import { docFromFile } from './canvas-docs.js';
import type { CanvasStore } from './canvas-store.js';

/** A file a skill's script wrote, as `run_script`'s result lists it. */
export interface ScriptOutputFile {
  path: string;
  media_type: string;
  size: number;
}

/**
 * The files a `run_script` result lists, with the run they belong to; null for any other result.
 * The result came from a tool call (untrusted): only well-formed entries are kept.
 */
export function scriptOutputsOf(
  result: unknown,
): { runId: string; script: string | null; files: ScriptOutputFile[] } | null {
  const r = result && typeof result === 'object' ? (result as Record<string, unknown>) : null;
  if (!r || typeof r.run_id !== 'string' || !Array.isArray(r.files)) return null;
  const files = r.files.filter(
    (f): f is ScriptOutputFile =>
      !!f &&
      typeof f === 'object' &&
      typeof (f as ScriptOutputFile).path === 'string' &&
      typeof (f as ScriptOutputFile).media_type === 'string' &&
      typeof (f as ScriptOutputFile).size === 'number',
  );
  return files.length
    ? { runId: r.run_id, script: typeof r.script === 'string' ? r.script : null, files }
    : null;
}

/**
 * Show a file a script wrote in the canvas: its bytes are read from the main process
 * (`scripts/read-output`) only now, and shown by what they are (a table, Markdown, code, an image,
 * or offered for download). A file no longer kept is said in the canvas, with what to do.
 */
export function openScriptOutput(
  client: Client,
  canvas: StoreApi<CanvasStore>,
  runId: string,
  file: ScriptOutputFile,
  source: string,
): Promise<void> {
  const name = file.path.split('/').at(-1) || file.path;
  return canvas.getState().openLoaded(name, async () => {
    try {
      const r = await client.invoke('scripts/read-output', { run_id: runId, path: file.path });
      return docFromFile(name, r.media_type, r.data_base64, source);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw Object.assign(
        new Error(`Couldn’t open ${file.path}: ${message} Run the script again to get it back.`),
        {
          code: (e as { code?: string }).code ?? 'INTERNAL',
        },
      );
    }
  });
}
