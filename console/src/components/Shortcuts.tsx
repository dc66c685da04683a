import { signal } from '@preact/signals';
import { useStore } from '../state/context.js';
import { Modal } from './Modal.js';

const open = signal(false);
export const openShortcuts = () => void (open.value = true);

/** The `?` dialog: every keyboard shortcut of the inbox and the ticket view. */
export function Shortcuts() {
  const t = useStore().t.value;
  if (!open.value) return null;
  const keys: [string, string][] = [
    ['j', t.key_j],
    ['k', t.key_k],
    ['Enter', t.key_enter],
    ['r', t.key_r],
    // The reply box sends on Ctrl+Enter (⌘+Enter on a Mac): the one shortcut that works inside a field.
    ['Ctrl+Enter', t.key_send],
    ['e', t.key_e],
    ['x', t.key_x],
    ['/', t.key_slash],
    ['?', t.key_help],
    ['Esc', t.key_escape],
  ];
  return (
    <Modal title={t.shortcuts} onClose={() => (open.value = false)}>
      <dl class="keys">
        {keys.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div class="actions">
        <button type="button" class="btn" autofocus onClick={() => (open.value = false)}>
          {t.close}
        </button>
      </div>
    </Modal>
  );
}
