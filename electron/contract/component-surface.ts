/**
 * What a WebAssembly component declares at its top level — the instances and functions it imports,
 * what it exports — read straight from its binary, synchronously, so a package's validation can
 * refuse a component whose imports the skill world does not grant before anything else looks at it.
 * Nested components and core modules are skipped: only the outermost imports reach the host.
 */

/** One top-level import or export: its name (`wasi:sockets/tcp@0.2.0`, `run`) and sort. */
export interface ComponentItem {
  name: string;
  sort: 'module' | 'func' | 'value' | 'type' | 'component' | 'instance';
}

/** The declared surface of a component. */
export interface ComponentSurface {
  imports: ComponentItem[];
  exports: ComponentItem[];
}

const SORTS = ['module', 'func', 'value', 'type', 'component', 'instance'] as const;

class Reader {
  constructor(
    readonly b: Uint8Array,
    public p: number,
  ) {}
  byte(): number {
    if (this.p >= this.b.length) throw new Error('truncated');
    return this.b[this.p++]!;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new Error('bad LEB128');
    }
  }
  /** A signed LEB128 (type indices and value types are s33). */
  s33(): number {
    let shift = 0;
    for (;;) {
      const byte = this.byte();
      shift += 7;
      if ((byte & 0x80) === 0) return 0;
      if (shift > 35) throw new Error('bad LEB128');
    }
  }
  name(): string {
    const len = this.u32();
    if (this.p + len > this.b.length) throw new Error('truncated');
    const s = new TextDecoder('utf-8', { fatal: true }).decode(this.b.subarray(this.p, this.p + len));
    this.p += len;
    return s;
  }
  /** `importname'` / `exportname'`: a one-byte form tag, the name, and (0x01 … 0x02) a version. */
  externName(): string {
    const tag = this.byte();
    if (tag !== 0x00 && tag !== 0x01) throw new Error(`unknown name form ${tag}`);
    return this.name();
  }
  externDesc(): ComponentItem['sort'] {
    const sort = this.byte();
    switch (sort) {
      case 0x00:
        if (this.byte() !== 0x11) throw new Error('bad core sort');
        this.u32();
        return 'module';
      case 0x02:
        if (this.byte() === 0x00) this.u32();
        else this.s33();
        return 'value';
      case 0x03:
        if (this.byte() === 0x00) this.u32();
        return 'type';
      case 0x01:
      case 0x04:
      case 0x05:
        this.u32();
        return SORTS[sort]!;
      default:
        throw new Error(`unknown extern sort ${sort}`);
    }
  }
}

/** Whether `bytes` start like a component (rather than a core module or anything else). */
export function isComponent(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 8 &&
    bytes[0] === 0 &&
    bytes[1] === 0x61 &&
    bytes[2] === 0x73 &&
    bytes[3] === 0x6d &&
    bytes[6] === 0x01 &&
    bytes[7] === 0x00
  );
}

/** The top-level imports and exports of a component; throws an Error saying why it cannot be read. */
export function readComponentSurface(bytes: Uint8Array): ComponentSurface {
  if (!isComponent(bytes)) {
    const core = bytes.length >= 8 && bytes[4] === 1 && bytes[6] === 0;
    throw new Error(
      core
        ? 'this is a core WebAssembly module, not a component (wrap it with `wasm-tools component new`)'
        : 'not a WebAssembly component',
    );
  }
  const out: ComponentSurface = { imports: [], exports: [] };
  const r = new Reader(bytes, 8);
  while (r.p < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.p + size;
    if (end > bytes.length) throw new Error('truncated section');
    if (id === 10) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const name = r.externName();
        out.imports.push({ name, sort: r.externDesc() });
      }
    } else if (id === 11) {
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const name = r.externName();
        const sort = r.byte();
        if (sort === 0x00) r.byte();
        r.u32();
        if (r.byte() === 0x01) r.externDesc();
        out.exports.push({ name, sort: SORTS[sort] ?? 'type' });
      }
    }
    r.p = end;
  }
  return out;
}
