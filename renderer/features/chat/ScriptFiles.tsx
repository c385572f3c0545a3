import { useState } from 'react';
import { useStores } from '../../stores.js';
import { downloadBlob, saveBlobTo } from '../../ui/download.js';
import { Icon } from '../../ui/Icon.js';
import './script-files.css';

interface ScriptFile {
  path: string;
  media_type: string;
  size: number;
}

function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The files a `run_script` result lists, when it is one (anything else from the model: none). */
export function scriptFilesOf(result: unknown): { runId: string; files: ScriptFile[] } | null {
  const r = result && typeof result === 'object' ? (result as Record<string, unknown>) : null;
  if (!r || typeof r.run_id !== 'string' || !Array.isArray(r.files)) return null;
  const files = r.files.filter(
    (f): f is ScriptFile =>
      !!f &&
      typeof f === 'object' &&
      typeof (f as ScriptFile).path === 'string' &&
      typeof (f as ScriptFile).media_type === 'string' &&
      typeof (f as ScriptFile).size === 'number',
  );
  return files.length ? { runId: r.run_id, files } : null;
}

/**
 * The files a skill's script wrote, as chips that download them: the bytes come from the main
 * process only when asked, and are saved from a blob URL on this origin (nothing leaves the app).
 */
export function ScriptFiles({ result }: { result: unknown }) {
  const { client } = useStores();
  const [error, setError] = useState<string | null>(null);
  const found = scriptFilesOf(result);
  if (!found) return null;
  const fetchBlob = async (f: ScriptFile) => {
    const r = await client.invoke('scripts/read-output', { run_id: found.runId, path: f.path });
    const bytes = Uint8Array.from(atob(r.data_base64), (c) => c.charCodeAt(0));
    return new Blob([bytes], { type: r.media_type });
  };
  const fileName = (f: ScriptFile) => f.path.split('/').at(-1) ?? 'output';
  const saveTo = async (f: ScriptFile) => {
    setError(null);
    try {
      await saveBlobTo(fileName(f), () => fetchBlob(f));
    } catch (e) {
      setError(`Couldn’t save ${f.path}: ${(e as Error).message}. Run the script again to get it back.`);
    }
  };
  const save = async (f: ScriptFile) => {
    setError(null);
    try {
      downloadBlob(fileName(f), await fetchBlob(f));
    } catch (e) {
      setError(`Couldn’t download ${f.path}: ${(e as Error).message}. Run the script again to get it back.`);
    }
  };
  return (
    <div className="script-files">
      <ul className="script-files__list" aria-label="Files the script wrote">
        {found.files.map((f) => (
          <li key={f.path}>
            <button
              type="button"
              className="script-file"
              title={`Download ${f.path} (${f.media_type})`}
              onClick={() => void save(f)}
            >
              <Icon name="download" /> <span className="script-file__name">{f.path}</span>{' '}
              <span className="muted">{sizeText(f.size)}</span>
            </button>{' '}
            <button
              type="button"
              className="script-file-save"
              aria-label={`Save ${f.path} to…`}
              title={`Choose where to save ${f.path}`}
              onClick={() => void saveTo(f)}
            >
              Save to…
            </button>
          </li>
        ))}
      </ul>
      {error && (
        <p className="step__reason" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
