/**
 * A seccomp filter for the native runtime, handed to bubblewrap (`--seccomp FD`) as a compiled
 * classic-BPF program. The namespaces already take away the network, other processes and the file
 * system; the filter closes the kernel interfaces a script has no business with and that have
 * carried most container escapes: tracing (`ptrace`, `process_vm_*`), the kernel's own loaders
 * (`bpf`, modules, `kexec`), keyrings, `userfaultfd`, `io_uring`, `perf_event_open`, and every
 * mount or namespace call. They fail with EPERM, which Python reports as a PermissionError the
 * script (and so the model) sees. A process of another architecture (x32 on x86-64) is killed.
 */

/** The syscalls refused, by name; numbers per architecture below. */
export const DENIED_SYSCALLS = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'keyctl',
  'add_key',
  'request_key',
  'mount',
  'umount2',
  'pivot_root',
  'swapon',
  'swapoff',
  'reboot',
  'setns',
  'unshare',
  'open_by_handle_at',
  'name_to_handle_at',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'acct',
  'quotactl',
  'syslog',
  'chroot',
  'vhangup',
] as const;

type Syscall = (typeof DENIED_SYSCALLS)[number];

// Numbers from the kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl and the
// generic include/uapi/asm-generic/unistd.h that arm64 uses).
const X86_64: Record<Syscall, number> = {
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kexec_load: 246,
  kexec_file_load: 320,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  bpf: 321,
  perf_event_open: 298,
  userfaultfd: 323,
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  setns: 308,
  unshare: 272,
  open_by_handle_at: 304,
  name_to_handle_at: 303,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  acct: 163,
  quotactl: 179,
  syslog: 103,
  chroot: 161,
  vhangup: 153,
};

const AARCH64: Record<Syscall, number> = {
  ptrace: 117,
  process_vm_readv: 270,
  process_vm_writev: 271,
  kexec_load: 104,
  kexec_file_load: 294,
  init_module: 105,
  finit_module: 273,
  delete_module: 106,
  bpf: 280,
  perf_event_open: 241,
  userfaultfd: 282,
  keyctl: 219,
  add_key: 217,
  request_key: 218,
  mount: 40,
  umount2: 39,
  pivot_root: 41,
  swapon: 224,
  swapoff: 225,
  reboot: 142,
  setns: 268,
  unshare: 97,
  open_by_handle_at: 265,
  name_to_handle_at: 264,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  acct: 89,
  quotactl: 60,
  syslog: 116,
  chroot: 51,
  vhangup: 58,
};

const ARCHES: Record<string, { audit: number; table: Record<Syscall, number>; x32?: boolean }> = {
  x64: { audit: 0xc000003e, table: X86_64, x32: true },
  arm64: { audit: 0xc00000b7, table: AARCH64 },
};

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const X32_BIT = 0x40000000;

/**
 * The filter for this machine's architecture as bytes of `struct sock_filter`, or null where no
 * table exists (the sandbox then runs without it and says so).
 */
export function seccompFilter(arch: string = process.arch): Uint8Array | null {
  const a = ARCHES[arch];
  if (!a) return null;
  const nrs = DENIED_SYSCALLS.map((s) => a.table[s]);
  // Layout: [arch check][load nr][x32 check?][one jeq per syscall][allow][errno][kill]
  const prog: Array<[number, number, number, number]> = [];
  const head = a.x32 ? 4 : 3;
  const allow = head + nrs.length;
  const errno = allow + 1;
  const kill = allow + 2;
  prog.push([LD_W_ABS, 0, 0, 4]);
  prog.push([JEQ_K, 0, kill - 2, a.audit]);
  prog.push([LD_W_ABS, 0, 0, 0]);
  if (a.x32) prog.push([JGE_K, kill - 4, 0, X32_BIT]);
  nrs.forEach((nr, i) => {
    const at = head + i;
    prog.push([JEQ_K, errno - at - 1, 0, nr]);
  });
  prog.push([RET_K, 0, 0, RET_ALLOW]);
  prog.push([RET_K, 0, 0, RET_ERRNO | EPERM]);
  prog.push([RET_K, 0, 0, RET_KILL_PROCESS]);
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return new Uint8Array(buf);
}
