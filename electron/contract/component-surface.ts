/**
 * What a WebAssembly component of the `skilldesk:skill` world may import, and what one declares at
 * its top level — the instances and functions it imports,
 * what it exports — read straight from its binary, synchronously, so a package's validation can
 * refuse a component whose imports the skill world does not grant before anything else looks at it.
 * Nested components and core modules are skipped: only the outermost imports reach the host.
 * Pure (no Node): the app checks packages with it and the Composer shows a component with it.
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

/** The interface every component may import (any 0.1.x version of it). */
export const HOST_INTERFACE = 'skilldesk:skill/host';

/** What a component gets besides `host` without asking: clocks and random numbers. */
export const DEFAULT_GRANTS: readonly string[] = [
  'wasi:clocks/wall-clock',
  'wasi:clocks/monotonic-clock',
  'wasi:random/random',
  'wasi:random/insecure',
  'wasi:random/insecure-seed',
];

/** The interface of an import name, without its version (`wasi:sockets/tcp@0.2.0` → `wasi:sockets/tcp`). */
export function interfaceOf(name: string): string {
  return name.replace(/@[^@/]*$/, '');
}

/** A component's import or export problem, in words that name it. */
export interface ComponentProblem {
  /** The import or export concerned (`wasi:sockets/tcp@0.2.0`), when there is one. */
  item?: string;
  message: string;
  /** An import the world does not grant. */
  refused?: boolean;
}

/** Problems in one sentence: refused imports listed together, then the rest. */
export function describeProblems(problems: readonly ComponentProblem[]): string {
  const refused = problems.filter((p) => p.refused).map((p) => p.item);
  const parts = problems.filter((p) => !p.refused).map((p) => p.message);
  if (refused.length > 0)
    parts.unshift(
      `imports ${refused.join(', ')}, which a skill component is not granted (it may import ${HOST_INTERFACE}, clocks and random only)`,
    );
  return parts.join('; ');
}

/**
 * Check a component's declared imports and exports against the world: it must export `run` and may
 * import only `host` (0.1.x) and the granted interfaces. Each problem names the import.
 */
export function checkSurface(
  surface: ComponentSurface,
  grants: readonly string[] = DEFAULT_GRANTS,
): ComponentProblem[] {
  const problems: ComponentProblem[] = [];
  for (const imp of surface.imports) {
    const iface = interfaceOf(imp.name);
    if (iface === HOST_INTERFACE) {
      const version = imp.name.slice(iface.length + 1);
      if (version && !/^0\.1\.\d+$/.test(version))
        problems.push({
          item: imp.name,
          message: `imports ${imp.name}: this SkillDesk has skilldesk:skill@0.1`,
        });
      continue;
    }
    if (imp.sort === 'type') continue;
    if (grants.includes(iface)) continue;
    problems.push({ item: imp.name, message: `imports ${imp.name}`, refused: true });
  }
  const run = surface.exports.find((e) => e.name === 'run');
  if (run?.sort !== 'func')
    problems.push({
      item: 'run',
      message: 'does not export run: func(input: string) -> result<string, string>',
    });
  return problems;
}
