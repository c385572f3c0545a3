/** What the gate does with an import of the interpreter once it is closed. */
export function classifyImport(name: string): 'allow' | 'taint' | 'stub' | 'deny';
export class GateError extends Error {
  importName: string;
  constructor(name: string);
}
export interface GateState {
  closed: boolean;
  denied: string | null;
  tainted: string | null;
  calls: number;
}
export function createGate(): GateState;
export function gateImports(env: Record<string, unknown>, gate: GateState): Record<string, unknown>;
