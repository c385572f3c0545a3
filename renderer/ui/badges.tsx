import type { CSSProperties } from 'react';
import {
  ARTIFACT_KINDS,
  type ArtifactKindName,
  isArtifactKind,
  KIND_FACTS,
  kindColour,
} from '../../electron/contract/kinds.js';
import type { SkillScope } from '../../electron/contract/skills.js';

/** Human names of the artifact kinds (the contract's kind table). */
export const KIND_LABELS = Object.fromEntries(ARTIFACT_KINDS.map((k) => [k, KIND_FACTS[k].label])) as Record<
  ArtifactKindName,
  string
>;

/** What each kind does, for tooltips and screen readers. */
export const KIND_HELP = Object.fromEntries(ARTIFACT_KINDS.map((k) => [k, KIND_FACTS[k].help])) as Record<
  ArtifactKindName,
  string
>;

/** The style giving a chip its kind's colour (set through the CSSOM, which the CSP allows). */
export function kindChipStyle(kind: string): CSSProperties | undefined {
  return isArtifactKind(kind) ? ({ '--chip': kindColour(kind) } as CSSProperties) : undefined;
}

/** A small coloured chip naming an artifact kind. */
export function KindChip({ kind }: { kind: ArtifactKindName }) {
  return (
    <span className={`chip chip--${kind}`} style={kindChipStyle(kind)} title={KIND_HELP[kind]}>
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
