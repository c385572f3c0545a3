// Types of cli-bundle.mjs (imported by a test).
export const CLI_BUNDLE: string;
export function bundleFresh(): boolean;
export function buildCliBundle(): Promise<void>;
export function loadCli(): Promise<(argv: string[]) => Promise<number>>;
