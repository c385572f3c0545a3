/**
 * How the Composer edits each artifact kind, beside the contract's `KIND_FACTS` (label, language,
 * colours): the label over the content, a bar of the kind's own above it, model variants side by
 * side, and what stands in for the text editor when the content is not text to edit. Typed over
 * every kind, so a kind added to the contract without a row here fails `tsc`.
 */
import type { ReactNode } from 'react';
import type { ArtifactKindName } from '../../../electron/contract/kinds.js';
import { ComponentBar } from './ComponentBar.js';
import type { DraftArtifact } from './draft.js';
import { LlmSkillAccess } from './LlmSkillAccess.js';
import { ResourceBar, resourceMeta } from './ResourceBar.js';

/** The Composer's editor of one kind. */
export interface KindEditor {
  /** The label over the content editor. */
  content_label: string;
  /** A bar of the kind's own above the content (`skill`: the stored skill's name, if any). */
  Bar?: (props: { a: DraftArtifact; skill: string | null }) => ReactNode;
  /** Model variants can be added and edited side by side. */
  variants: boolean;
  /** Why the content is not edited as text, shown in the editor's place; null or absent: edit it. */
  opaque?: (a: DraftArtifact) => string | null;
}

const TEXT: KindEditor = { content_label: 'Content', variants: false };

/** Every kind's editor. */
export const KIND_EDITORS: { readonly [K in ArtifactKindName]: KindEditor } = {
  description: TEXT,
  prompt_template: { content_label: 'Template (MiniJinja)', variants: true },
  code_template: TEXT,
  dspy_module: TEXT,
  approach: TEXT,
  example: TEXT,
  resource: {
    ...TEXT,
    Bar: ({ a }) => <ResourceBar a={a} />,
    opaque: (a) =>
      resourceMeta(a.metadata).binary
        ? 'A binary file is kept as it is: download it to look inside, upload another to replace it.'
        : null,
  },
  wasm_component: {
    ...TEXT,
    Bar: ({ a }) => <ComponentBar a={a} />,
    opaque: () =>
      'A component is kept as it is: its imports and exports are above; upload another to replace it.',
  },
  llm_agent: { ...TEXT, Bar: ({ skill }) => <LlmSkillAccess skill={skill} /> },
};

/** The kind the "Add artifact" menu starts on: the first that has model variants (a prompt). */
export const FIRST_ADDED: ArtifactKindName =
  (Object.keys(KIND_EDITORS) as ArtifactKindName[]).find((k) => KIND_EDITORS[k].variants) ?? 'description';
