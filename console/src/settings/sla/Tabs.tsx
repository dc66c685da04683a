import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import './tabs.css';

/**
 * A screen of several `/admin` resources, one form each (each saved on its own), shown one at a time.
 * The caller keeps each resource's state, so switching tabs loses no draft; a tab with unsaved changes
 * says so in its name.
 */
export function Tabs(props: {
  label: string;
  tabs: { id: string; label: string; dirty?: boolean }[];
  unsaved: string;
  children: (id: string) => ComponentChildren;
}) {
  const [open, setOpen] = useState(props.tabs[0]!.id);
  const ids = props.tabs.map((t) => t.id);
  const go = (id: string) => {
    setOpen(id);
    requestAnimationFrame(() => document.getElementById(`tab-${id}`)?.focus());
  };
  return (
    <>
      <div
        class="tabs"
        role="tablist"
        aria-label={props.label}
        onKeyDown={(e) => {
          const i = ids.indexOf(open);
          if (e.key === 'ArrowRight') go(ids[(i + 1) % ids.length]!);
          else if (e.key === 'ArrowLeft') go(ids[(i - 1 + ids.length) % ids.length]!);
          else if (e.key === 'Home') go(ids[0]!);
          else if (e.key === 'End') go(ids[ids.length - 1]!);
        }}
      >
        {props.tabs.map((t) => (
          <button
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === open}
            aria-controls={t.id === open ? `tabpanel-${t.id}` : undefined}
            tabIndex={t.id === open ? 0 : -1}
            onClick={() => setOpen(t.id)}
          >
            {t.label}
            {t.dirty && (
              <span class="tab-dirty" title={props.unsaved} aria-label={props.unsaved}>
                •
              </span>
            )}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`tabpanel-${open}`} aria-labelledby={`tab-${open}`}>
        {props.children(open)}
      </div>
    </>
  );
}
