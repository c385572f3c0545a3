import { useEffect, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { modelLabel } from '../../../electron/contract/model-label.js';
import { useProvidersStore } from '../../stores.js';

/**
 * The model naming of every view ({@link modelLabel}: "Alpha · alpha-small", never
 * `openai-compatible:alpha-small`), bound to the providers store; loads the providers once when
 * nothing has asked for them yet (a view opened before the chat).
 */
export function useModelLabel(): (modelId: string | null | undefined) => string | null {
  const p = useProvidersStore(useShallow((s) => ({ status: s.status, value: s.value, load: s.load })));
  useEffect(() => {
    if (p.status === 'idle') void p.load();
  }, [p.status, p.load]);
  const providers = useMemo(
    () => (p.value ? [...p.value.configured, ...p.value.providers] : null),
    [p.value],
  );
  return (id) => modelLabel(id, providers);
}
