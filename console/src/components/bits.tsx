import type { Priority } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { avatarColor, initials } from './avatar.js';

// Small pieces the list and the ticket share. Colours come from the configuration, set as a custom
// property through the CSSOM (allowed under `style-src 'self'`, unlike a style attribute in HTML).

export function StatusBadge({ status }: { status: string }) {
  const s = useStore();
  const color = s.meta.value?.statuses.find((x) => x.id === status)?.color;
  return (
    <span class="badge status" style={color ? { '--c': color } : undefined}>
      {s.statusName(status)}
    </span>
  );
}

export function PriorityBadge({ priority }: { priority: Priority }) {
  const t = useStore().t.value;
  return <span class={`badge prio prio-${priority}`}>{t[`prio_${priority}`]}</span>;
}

export function TagChip({ tag, onRemove }: { tag: string; onRemove?: () => void }) {
  const s = useStore();
  const color = s.tagDefs.value.find((d) => d.name === tag)?.color;
  return (
    <span class="tag" style={color ? { '--c': color } : undefined}>
      {tag}
      {onRemove && (
        <button type="button" class="tag-x" aria-label={fill(s.t.value.removeTag, { tag })} onClick={onRemove}>
          <span aria-hidden="true">×</span>
        </button>
      )}
    </span>
  );
}

/** The agents one may assign to: every active colleague of /team, oneself, and whoever is assigned now. */
export function AgentOptions({ current }: { current: string | null }) {
  const s = useStore();
  const me = s.me.value!;
  const list = s.agents.value.some((a) => a.id === me.id)
    ? s.agents.value
    : [{ id: me.id, name: me.name }, ...s.agents.value];
  const extra = current && !list.some((a) => a.id === current) ? [{ id: current, name: s.agentName(current)! }] : [];
  return (
    <>
      {[...list, ...extra].map((a) => (
        <option key={a.id} value={a.id}>
          {a.id === me.id ? fill(s.t.value.me, { name: me.name }) : a.name}
        </option>
      ))}
    </>
  );
}

/** An agent's initials on a colour of their id; decoration only (their name stands beside it). */
export function Avatar({ id, name }: { id: string; name: string }) {
  return (
    <span class="avatar" aria-hidden="true" style={{ '--c': avatarColor(id) }}>
      {initials(name)}
    </span>
  );
}
