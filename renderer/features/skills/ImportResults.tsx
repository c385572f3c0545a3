import { useSkillsStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import type { ImportFileResult } from './skills-store.js';

interface Issue {
  path: string;
  message: string;
}

function issuesOf(r: Extract<ImportFileResult, { ok: false }>): Issue[] {
  const raw = r.error.details?.issues;
  if (!Array.isArray(raw)) return [];
  return raw
    .filter(
      (i): i is Issue =>
        typeof i === 'object' && i !== null && typeof i.path === 'string' && typeof i.message === 'string',
    )
    .slice(0, 12);
}

function headline(r: Extract<ImportFileResult, { ok: false }>): string {
  switch (r.error.code) {
    case 'INVALID_INPUT':
      return issuesOf(r).length > 0 ? 'is not a valid skill package' : 'could not be imported';
    case 'VERSION_CONFLICT':
      return 'is older than the installed skill';
    case 'CONFLICT':
      return 'conflicts with an installed skill';
    case 'TOO_LARGE':
      return 'is too large';
    default:
      return 'could not be imported';
  }
}

/** What the last import did, file by file; problems list their JSON paths. */
export function ImportResults() {
  const results = useSkillsStore((s) => s.imports.results);
  const busy = useSkillsStore((s) => s.imports.busy);
  const dismiss = useSkillsStore((s) => s.dismissImport);
  const importFiles = useSkillsStore((s) => s.importFiles);
  const failures = results.filter((r): r is Extract<ImportFileResult, { ok: false }> => !r.ok);
  if (busy) {
    return (
      <output className="import-panel import-panel--busy">
        <span className="spinner" aria-hidden="true" /> Importing…
      </output>
    );
  }
  if (failures.length === 0) return null;
  return (
    <section className="import-panel" role="alert" aria-label="Import problems">
      <header className="import-panel__head">
        <Icon name="alert" />
        <strong>
          {failures.length === 1 ? '1 file was not imported' : `${failures.length} files were not imported`}
        </strong>
        <button type="button" className="btn btn--icon btn--small" onClick={dismiss} aria-label="Dismiss">
          <Icon name="close" />
        </button>
      </header>
      {failures.map((r) => {
        const issues = issuesOf(r);
        const more =
          (Array.isArray(r.error.details?.issues) ? r.error.details.issues.length : 0) - issues.length;
        return (
          <div key={r.file} className="import-failure">
            <p className="import-failure__title">
              <Icon name="file" /> <span className="mono">{r.file}</span> {headline(r)}
            </p>
            {issues.length > 0 ? (
              <ul className="issues">
                {issues.map((i) => (
                  <li key={`${i.path}:${i.message}`}>
                    <code className="issue__path">{i.path}</code>
                    <span className="issue__msg">{i.message}</span>
                  </li>
                ))}
                {more > 0 && <li className="issue__more">…and {more} more</li>}
              </ul>
            ) : (
              <p className="import-failure__msg">
                {r.error.message
                  .replace(/\s*pass --force to downgrade$/, '')
                  .replace(/, or pass --force to replace the built-in one$/, '.')}
              </p>
            )}
            {r.error.code === 'VERSION_CONFLICT' && r.text !== undefined && (
              <button
                type="button"
                className="btn btn--small"
                onClick={() => {
                  const text = r.text ?? '';
                  void importFiles([{ name: r.file, text: async () => text }], { force: true });
                }}
              >
                Import anyway (downgrade)
              </button>
            )}
            {r.error.code === 'CONFLICT' && r.error.details?.source === 'system' && r.text !== undefined && (
              <button
                type="button"
                className="btn btn--small"
                onClick={() => {
                  const text = r.text ?? '';
                  void importFiles([{ name: r.file, text: async () => text }], { force: true });
                }}
              >
                Replace the built-in skill
              </button>
            )}
            {issues.length > 0 && (
              <p className="import-failure__hint">Fix these fields in the file and drop it again.</p>
            )}
          </div>
        );
      })}
    </section>
  );
}
