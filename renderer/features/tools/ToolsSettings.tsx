import { useStore } from 'zustand';
import { useStores } from '../../stores.js';
import { ToolsCard } from './ToolsCard.js';

/** Settings → Tools, bound to the app's tools store. */
export function ToolsSettings() {
  const state = useStore(useStores().tools);
  return <ToolsCard store={state} />;
}
