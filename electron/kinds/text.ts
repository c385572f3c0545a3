import type { ArtifactKindName } from '../contract/kinds.js';
import { succeed } from './result.js';
import type { AgentSkillsRule, KindModule } from './types.js';

/**
 * A kind whose text is injected into the model's context (description, approach, example,
 * resource): it has no effects and runs nothing. `agentSkills` says where an export writes it;
 * `review` defaults to nothing to list.
 */
export function textKind<K extends ArtifactKindName>(
  kind: K,
  agentSkills: AgentSkillsRule,
  review: KindModule<K>['review'] = () => ({}),
): KindModule<K> {
  return {
    kind,
    runs_in: 'nothing',
    validate: () => [],
    effects: () => [],
    agentSkills,
    review,
    async execute(artifact) {
      const binary = artifact.metadata?.encoding === 'base64';
      const text = binary
        ? `[binary file ${artifact.name}, ${Buffer.from(artifact.content, 'base64').length} bytes]`
        : artifact.content;
      return succeed({ text, injected: true, raw_output: text });
    },
  };
}
