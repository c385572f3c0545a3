/** Types of `frames.mjs` (plain JavaScript, shared with the sandbox process). */
export const KIND_JSON: 1;
export const KIND_BINARY: 2;
/** Encode one JSON message, optionally followed by one binary attachment. */
export function encodeFrames(message: unknown, binary?: Uint8Array): Uint8Array[];
/** Encode one binary frame on its own (a run's file chunk, after its run's JSON frame). */
export function encodeBinaryFrame(binary: Uint8Array): Uint8Array[];
/** Limits of a {@link FrameReader}. */
export interface FrameLimits {
  /** Largest JSON payload accepted, in bytes. */
  maxJson: number;
  /** Largest binary payload accepted now (0: none expected). */
  maxBinary: () => number;
  /** Deepest JSON nesting accepted (default 64), checked before parsing. */
  maxDepth?: number;
}
/** What a {@link FrameReader} reports. */
export interface FrameEvents {
  onJson(message: unknown): void;
  onBinary(bytes: Uint8Array): void;
  onViolation(why: string): void;
}
/** An incremental frame reader with a size limit checked before buffering. */
export class FrameReader {
  constructor(limits: FrameLimits, events: FrameEvents);
  push(chunk: Uint8Array): void;
  readonly broken: boolean;
}
/** The nesting depth of a JSON text, by scanning; `Infinity` once past `max`. */
export function jsonDepth(text: string, max: number): number;
