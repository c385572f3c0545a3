import { useRef } from 'react';
import { useComposerStore } from '../../stores.js';
import { Icon } from '../../ui/Icon.js';
import type { DraftArtifact } from './draft.js';
import { decodeText, download, formatSize, fromBase64, mediaType, toBase64 } from './files.js';

/** A resource's metadata as far as the editor needs it. */
export function resourceMeta(metadata: string): {
  path?: string;
  binary: boolean;
  rest: Record<string, unknown>;
} {
  try {
    const m = JSON.parse(metadata || '{}') as Record<string, unknown>;
    if (!m || typeof m !== 'object' || Array.isArray(m)) return { binary: false, rest: {} };
    return {
      ...(typeof m.path === 'string' ? { path: m.path } : {}),
      binary: m.encoding === 'base64',
      rest: m,
    };
  } catch {
    return { binary: false, rest: {} };
  }
}

/** A bundled file: its size and type, upload to replace it, download it. */
export function ResourceBar({ a }: { a: DraftArtifact }) {
  const change = useComposerStore((st) => st.changeArtifact);
  const input = useRef<HTMLInputElement>(null);
  const meta = resourceMeta(a.metadata);
  const fileName = meta.path ?? a.name;
  let bytes: Uint8Array;
  try {
    bytes = meta.binary ? fromBase64(a.content) : new TextEncoder().encode(a.content);
  } catch {
    bytes = new TextEncoder().encode(a.content);
  }
  const type = mediaType(fileName);
  const upload = async (file: File) => {
    const raw = new Uint8Array(await file.arrayBuffer());
    const text = decodeText(raw);
    const { encoding: _e, ...rest } = meta.rest;
    const metadata = { ...rest, path: file.name, ...(text === null ? { encoding: 'base64' } : {}) };
    change(a.key, {
      name: file.name,
      content: text ?? toBase64(raw),
      metadata: JSON.stringify(metadata, null, 2),
    });
  };
  return (
    <section className="sc-resource" aria-label="Bundled file">
      <Icon name="file" />
      <span className="sc-resource__what">
        <strong>{fileName}</strong>
        <span className="muted">
          {formatSize(bytes.length)} · {type}
          {meta.binary ? ' · binary' : ''}
        </span>
      </span>
      <input
        ref={input}
        type="file"
        hidden
        data-testid="resource-upload"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void upload(f);
          e.target.value = '';
        }}
      />
      <button type="button" className="btn btn--small" onClick={() => input.current?.click()}>
        <Icon name="upload" />
        Upload file
      </button>
      <button
        type="button"
        className="btn btn--small"
        onClick={() => download(fileName.split('/').pop() || 'resource', bytes, type)}
      >
        <Icon name="download" />
        Download
      </button>
    </section>
  );
}
