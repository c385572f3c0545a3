import { useShallow } from 'zustand/react/shallow';
import { useSkillsStore } from '../../stores.js';
import { ConfirmDialog } from '../../ui/ConfirmDialog.js';
import { parseSkillKey } from './skills-store.js';

/** Confirm deleting the skill the store marked for deletion, saying what else changes. */
export function DeleteSkillDialog() {
  const s = useSkillsStore(
    useShallow((st) => ({
      items: st.list.items,
      pendingDelete: st.pendingDelete,
      deleting: st.deleting,
      cancelDelete: st.cancelDelete,
      confirmDelete: st.confirmDelete,
    })),
  );
  const pending = s.pendingDelete ? parseSkillKey(s.pendingDelete) : null;
  if (!pending) return null;
  const item = s.items.find((i) => i.scope === pending.scope && i.name === pending.name);
  return (
    <ConfirmDialog
      title={`Delete ${pending.name}?`}
      confirmLabel="Delete skill"
      danger
      busy={s.deleting}
      onCancel={s.cancelDelete}
      onConfirm={() => void s.confirmDelete()}
    >
      <p>
        This removes <strong>{pending.name}</strong> and its artifacts from the {pending.scope} store. It
        cannot be undone — export it first if you may want it back.
      </p>
      {item?.overrides && <p>The account skill of the same name becomes active again.</p>}
      {item?.source === 'system' && <p>Built-in skills come back only when a newer version ships.</p>}
    </ConfirmDialog>
  );
}
