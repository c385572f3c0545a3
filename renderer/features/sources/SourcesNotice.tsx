import { useCallback, useEffect, useState } from 'react';
import type { ListSourcesRes } from '../../../electron/contract/sources.js';
import { useStores } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import { describeAttention, sourcesAttention } from './attention.js';
import './sources.css';

/** Where a dismissal is kept: the findings it dismissed, so only new ones bring the notice back. */
const DISMISSED_KEY = 'skilldesk.sources-notice.dismissed';

function readDismissed(): string | null {
  try {
    return globalThis.localStorage?.getItem(DISMISSED_KEY) ?? null;
  } catch {
    // Storage can be switched off; the notice then comes back with each window.
    return null;
  }
}

function writeDismissed(key: string): void {
  try {
    globalThis.localStorage?.setItem(DISMISSED_KEY, key);
  } catch {
    // As above: dismissed for this window only.
  }
}

/** Open Settings and bring its Sources card into view, with focus on it for the keyboard. */
export function openSourcesSettings(navigate: () => void): void {
  navigate();
  // The Settings view mounts on the next render; look for the card for a few frames.
  let frames = 0;
  const find = () => {
    const card = document.getElementById('sources-card');
    if (card) {
      card.scrollIntoView?.({ block: 'start' });
      card.focus({ preventScroll: true });
    } else if (++frames < 60) requestAnimationFrame(find);
  };
  requestAnimationFrame(find);
}

/**
 * What the background check of the sources found — updates, new skills, removals, skills changed
 * since accepted — said in the sidebar without opening Settings, with a way there. Read from the
 * saved checks on start (a check made in an earlier run still counts), again after each background
 * check, after an install and when another workspace is opened.
 */
export function SourcesNotice() {
  const { client, app } = useStores();
  const [list, setList] = useState<ListSourcesRes | null>(null);
  const [dismissed, setDismissed] = useState<string | null>(() => readDismissed());
  const load = useCallback(async () => {
    const r = await client.call('sources/list', {});
    // A failed read says nothing here: Settings → Sources shows the error where it can be fixed.
    if (r.ok) setList(r.value);
  }, [client]);
  useEffect(() => {
    void load();
    const offChecked = client.subscribe('sources/checked', () => void load());
    const offCatalog = client.subscribe('skills/catalog-changed', () => void load());
    // Another workspace has its own store, so its own sources.
    const offWorkspace = client.subscribe('workspace/changed', () => void load());
    return () => {
      offChecked();
      offCatalog();
      offWorkspace();
    };
  }, [client, load]);
  if (!list) return null;
  const attention = sourcesAttention(list);
  const words = describeAttention(attention);
  if (!words || attention.key === dismissed) return null;
  const dismiss = () => {
    writeDismissed(attention.key);
    setDismissed(attention.key);
  };
  return (
    <section className="sources-notice" aria-label="Skill sources" role="status">
      <div className={`ptask${attention.tampered > 0 ? ' is-failed' : ''}`}>
        <Icon name={attention.tampered > 0 ? 'alert' : 'download'} />
        <span className="ptask__text">
          <span className="ptask__label">Skill sources: {words}</span>
          <span className="ptask__detail">Nothing is installed or run until you accept it.</span>
          <span>
            <button
              type="button"
              className="btn btn--small"
              onClick={() => openSourcesSettings(() => app.getState().navigate('settings'))}
            >
              Review in Settings
            </button>
          </span>
        </span>
        <button
          type="button"
          className="btn btn--icon"
          onClick={dismiss}
          aria-label="Dismiss the sources notice"
        >
          <Icon name="close" />
        </button>
      </div>
    </section>
  );
}
