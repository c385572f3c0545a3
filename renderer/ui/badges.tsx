import type { ArtifactKindName, SkillScope } from '../../electron/contract/skills.js';

/** Human names of the artifact kinds. */
export const KIND_LABELS: Record<ArtifactKindName, string> = {
  description: 'Description',
  prompt_template: 'Prompt',
  code_template: 'Python',
  dspy_module: 'DSPy',
  approach: 'Approach',
  example: 'Example',
  resource: 'Resource',
};

/** What each kind does, for tooltips and screen readers. */
export const KIND_HELP: Record<ArtifactKindName, string> = {
  description: 'Describes the skill',
  prompt_template: 'MiniJinja prompt template',
  code_template: 'Python run in the sandbox',
  dspy_module: 'DSPy program run by the sidecar',
  approach: 'Instructions injected when the skill is active',
  example: 'Worked example',
  resource: 'Bundled file read on demand',
};

/** A small coloured chip naming an artifact kind. */
export function KindChip({ kind }: { kind: ArtifactKindName }) {
  return (
    <span className={`chip chip--${kind}`} title={KIND_HELP[kind]}>
      {KIND_LABELS[kind]}
    </span>
  );
}

/** The store a skill lives in. */
export function ScopeBadge({ scope }: { scope: SkillScope }) {
  return (
    <span
      className={`badge badge--${scope}`}
      title={scope === 'workspace' ? 'Stored in this workspace' : 'Stored in your account'}
    >
      {scope === 'workspace' ? 'Workspace' : 'Account'}
    </span>
  );
}

/** Override state: an account skill hidden by the workspace, or a workspace skill hiding one. */
export function OverrideBadge({ overridden, overrides }: { overridden: boolean; overrides?: 'account' }) {
  if (overridden)
    return (
      <span className="badge badge--overridden" title="A workspace skill of the same name is used instead">
        Overridden
      </span>
    );
  if (overrides)
    return (
      <span className="badge badge--overrides" title="Used instead of the account skill of the same name">
        Overrides account
      </span>
    );
  return null;
}

/** Keyboard key cap. */
export function Kbd({ children }: { children: string }) {
  return <kbd className="kbd">{children}</kbd>;
}
