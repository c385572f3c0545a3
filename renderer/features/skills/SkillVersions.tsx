import { useCallback, useEffect, useState } from 'react';
import type { AppErrorData } from '../../../electron/contract/errors.js';
import type { SkillScope } from '../../../electron/contract/skills.js';
import { useStores } from '../../stores.js';
import type { ComposerState } from '../composer/composer-state.js';
import { VersionsView } from '../composer/HistoryPanel.js';

type History = ComposerState['history'];

const IDLE: History = {
  status: 'idle',
  data: null,
  from: null,
  to: null,
  diff: null,
  diffStatus: 'idle',
  error: null,
  restoring: false,
};

/**
 * A catalog skill's versions in its detail pane: the Composer's versions table and diff, over the
 * same channels, loaded when the section is opened.
 */
export function SkillVersions({ name, scope }: { name: string; scope: SkillScope }) {
  const { client } = useStores();
  const [open, setOpen] = useState(false);
  const [h, setH] = useState<History>(IDLE);
  const [note, setNote] = useState<string | null>(null);

  const load = useCallback(async () => {
    setH((x) => ({ ...x, status: 'loading', error: null }));
    const r = await client.call('skills/versions', { name, scope });
    if (r.ok) setH((x) => ({ ...x, status: 'ready', data: r.value }));
    else setH((x) => ({ ...x, status: 'error', error: r.error }));
  }, [client, name, scope]);

  useEffect(() => {
    if (open) void load();
  }, [open, load]);

  const compare = async (from: string, to: string) => {
    setH((x) => ({ ...x, from, to, diffStatus: 'loading' }));
    const r = await client.call('skills/diff-versions', { name, scope, from, to });
    setH((x) =>
      x.from !== from || x.to !== to
        ? x
        : r.ok
          ? { ...x, diff: r.value, diffStatus: 'ready' }
          : { ...x, diff: null, diffStatus: 'error', error: r.error as AppErrorData },
    );
  };

  const restore = async (version: string) => {
    setH((x) => ({ ...x, restoring: true }));
    const r = await client.call('skills/restore-version', { name, scope, version });
    setH((x) => ({ ...x, restoring: false, from: null, to: null, diff: null }));
    if (r.ok) {
      setNote(
        `Restored ${r.value.restored.version} (from version #${r.value.restored.from_number}) and saved it.`,
      );
      await load();
    } else setNote(`Not restored: ${r.error.message}`);
  };

  return (
    <details
      className="skill-versions"
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary className="section-title skill-versions__summary">
        Versions
        {h.data && <span className="count">{h.data.versions.length + (h.data.current ? 1 : 0)}</span>}
      </summary>
      {note && (
        <p className="skill-versions__note" role="status">
          {note}
        </p>
      )}
      {open && <VersionsView h={h} compare={compare} restore={restore} load={load} />}
    </details>
  );
}
