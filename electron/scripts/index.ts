export * from './native/consent.js';
export * from './native/full-python.js';
export * from './native/imports.js';
export * from './native/program-grants.js';
export * from './native/programs.js';
export * from './native/run.js';
export * from './native/sandbox.js';
export { DENIED_SYSCALLS } from './native/seccomp.js';
export * from './native/venv.js';
