import { textKind } from '../text.js';

/** `example`: a worked example; injected as text. */
export const exampleKind = textKind('example', {
  path: () => null,
  file: (_a, base) => `examples/${base}.md`,
});
