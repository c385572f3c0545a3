/**
 * Compare two versions (`1.2.3`, `1.2`, `2.0.0-beta.1`): numeric parts first, then a release
 * ranks above its pre-releases, pre-release identifiers compared as semver does. Build metadata
 * is ignored. Returns -1, 0 or 1.
 */
export function compareVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (pa.nums[i] ?? 0) - (pb.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (pa.pre.length === 0 || pb.pre.length === 0) return Math.sign(pb.pre.length - pa.pre.length);
  for (let i = 0; i < Math.max(pa.pre.length, pb.pre.length); i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Math.sign(Number(x) - Number(y));
    if (nx !== ny) return nx ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function parse(v: string): { nums: number[]; pre: string[] } {
  const [core = '', pre = ''] = v.split('+')[0]!.split(/-(.*)/s);
  return { nums: core.split('.').map((n) => Number(n) || 0), pre: pre ? pre.split('.') : [] };
}

/**
 * The next patch version after `v`: `1.2.3` → `1.2.4`, `1.2` → `1.2.1`, a pre-release → its
 * release (`2.0.0-beta.1` → `2.0.0`, which ranks above it). Build metadata is dropped.
 */
export function bumpPatch(v: string): string {
  const { nums, pre } = parse(v);
  const [major = 0, minor = 0, patch = 0] = nums;
  return pre.length > 0 ? `${major}.${minor}.${patch}` : `${major}.${minor}.${patch + 1}`;
}
