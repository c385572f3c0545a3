import { useEffect, useMemo, useRef, useState } from 'react';
import {
  type ComponentSurface,
  checkSurface,
  describeProblems,
  readComponentSurface,
} from '../../../electron/contract/component-surface.js';
import { useComposerStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import type { DraftArtifact } from './draft.js';
import { download, formatSize, fromBase64, toBase64 } from './files.js';

/** What the Composer shows of a component: its declared imports and exports, or why it cannot. */
function componentFacts(bytes: Uint8Array): { surface: ComponentSurface | null; problem: string | null } {
  if (bytes.length === 0) return { surface: null, problem: null };
  try {
    const surface = readComponentSurface(bytes);
    const problems = checkSurface(surface);
    return {
      surface,
      problem: problems.length > 0 ? `Refused: the component ${describeProblems(problems)}` : null,
    };
  } catch (e) {
    return { surface: null, problem: (e as Error).message };
  }
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A `wasm_component` artifact: upload a `.wasm`, see its WIT imports and exports, its size and
 * SHA-256, and whether the skill world accepts it (the same check the app runs on save), download it.
 */
export function ComponentBar({ a }: { a: DraftArtifact }) {
  const change = useComposerStore((st) => st.changeArtifact);
  const input = useRef<HTMLInputElement>(null);
  const bytes = useMemo(() => {
    try {
      return fromBase64(a.content);
    } catch {
      return new Uint8Array();
    }
  }, [a.content]);
  const { surface, problem } = useMemo(() => componentFacts(bytes), [bytes]);
  const [hash, setHash] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setHash(null);
    if (bytes.length > 0) void sha256(bytes).then((h) => live && setHash(h));
    return () => {
      live = false;
    };
  }, [bytes]);
  const upload = async (file: File) => {
    const raw = new Uint8Array(await file.arrayBuffer());
    let meta: Record<string, unknown> = {};
    try {
      const m = JSON.parse(a.metadata || '{}');
      if (m && typeof m === 'object' && !Array.isArray(m)) meta = m;
    } catch {
      // unreadable metadata is replaced
    }
    change(a.key, {
      name: file.name,
      content: toBase64(raw),
      metadata: JSON.stringify({ ...meta, encoding: 'base64' }, null, 2),
    });
  };
  const list = (items: ComponentSurface['imports']) =>
    items.length === 0 ? (
      <em>nothing</em>
    ) : (
      items.map((i) => <code key={`${i.sort} ${i.name}`}>{i.name}</code>)
    );
  return (
    <section
      className="sc-resource sc-component"
      aria-label="WebAssembly component"
      data-testid="component-bar"
    >
      <Icon name="file" />
      <span className="sc-resource__what">
        <strong>{a.name}</strong>
        <span className="muted">
          {bytes.length > 0 ? formatSize(bytes.length) : 'no component yet'}
          {hash ? (
            <>
              {' · sha256 '}
              <code title={hash}>{hash.slice(0, 16)}…</code>
            </>
          ) : null}
        </span>
        {surface && (
          <span className="sc-component__wit">
            <span>Imports: {list(surface.imports.filter((i) => i.sort !== 'type'))}</span>
            <span>Exports: {list(surface.exports)}</span>
          </span>
        )}
        {problem && (
          <span className="sc-issues" role="status">
            <Icon name="alert" /> {problem}
          </span>
        )}
      </span>
      <input
        ref={input}
        type="file"
        accept=".wasm,application/wasm"
        hidden
        data-testid="component-upload"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void upload(f);
          e.target.value = '';
        }}
      />
      <button type="button" className="btn btn--small" onClick={() => input.current?.click()}>
        <Icon name="upload" />
        Upload .wasm
      </button>
      {bytes.length > 0 && (
        <button
          type="button"
          className="btn btn--small"
          onClick={() => download(a.name.split('/').pop() || 'component.wasm', bytes, 'application/wasm')}
        >
          <Icon name="download" />
          Download
        </button>
      )}
    </section>
  );
}
