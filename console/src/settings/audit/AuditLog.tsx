import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import { dateTime } from '../../components/format.js';
import { useStore, useStrings } from '../../state/context.js';
import { TextInput } from '../kit/controls.js';
import { auditStrings } from './strings.js';
import './audit.css';

/** A line of `/admin r=audit` (docs/api.md "/admin", `audit`). */
interface Entry {
  id: string;
  at: string;
  actor: { kind: 'agent'; id: string; name: string } | { kind: 'public' | 'secret' | 'system'; prefix: string | null };
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

interface Filters {
  actor: string;
  action: string;
  target: string;
  /** datetime-local values (the browser's time zone). */
  from: string;
  to: string;
}
const NONE: Filters = { actor: '', action: '', target: '', from: '', to: '' };
const PAGE = 50;

/** A datetime-local value as an ISO time with the browser's offset, as the API takes it. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** The audit log with filters; "Older entries" pages on from the last entry shown. */
export function AuditLog() {
  const s = useStore();
  const t = useStrings(auditStrings);
  const [form, setForm] = useState<Filters>(NONE);
  const [applied, setApplied] = useState<Filters>(NONE);
  const [entries, setEntries] = useState<Entry[]>([]);
  const [more, setMore] = useState(false);
  const [busy, setBusy] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const load = async (filters: Filters, before?: string) => {
    setBusy(true);
    setErrors({});
    try {
      const page = await s.api.adminGet<Entry[]>('audit', {
        limit: PAGE,
        actor: filters.actor.trim(),
        action: filters.action.trim(),
        target: filters.target.trim(),
        from: isoOf(filters.from),
        to: isoOf(filters.to),
        before,
      });
      setEntries((list) => (before ? [...list, ...page] : page));
      setMore(page.length === PAGE);
      setApplied(filters);
    } catch (e) {
      if (e instanceof ApiError && e.details.length)
        setErrors(Object.fromEntries(e.details.map((d) => [d.param, d.message])));
      else setErrors({ '': e instanceof ApiError ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void load(NONE), []);

  const locale = s.locale.value;
  const who = (a: Entry['actor']) =>
    a.kind === 'agent' ? a.name : a.kind === 'system' ? t.system : `${t.key} ${a.prefix ?? ''}…`;
  const field = (key: keyof Filters, label: string, hint?: string) => (
    <TextInput
      id={`audit-${key}`}
      label={label}
      hint={hint}
      error={errors[key]}
      value={form[key]}
      onChange={(v) => setForm({ ...form, [key]: v })}
    />
  );
  return (
    <section class="settings-page" aria-labelledby="settings-title">
      <h1 id="settings-title">{t.title}</h1>
      <div class="intro">{t.intro}</div>
      <form
        class="audit-filters"
        aria-label={t.filters}
        onSubmit={(e) => {
          e.preventDefault();
          void load(form);
        }}
      >
        {field('actor', t.actor, t.actorHint)}
        {field('action', t.action, t.actionHint)}
        {field('target', t.target, t.targetHint)}
        <div class="field">
          <label for="audit-from">{t.from}</label>
          <input
            id="audit-from"
            type="datetime-local"
            value={form.from}
            aria-invalid={errors.from ? 'true' : undefined}
            onInput={(e) => setForm({ ...form, from: e.currentTarget.value })}
          />
          {errors.from && <p class="err">{errors.from}</p>}
        </div>
        <div class="field">
          <label for="audit-to">{t.to}</label>
          <input
            id="audit-to"
            type="datetime-local"
            value={form.to}
            aria-invalid={errors.to ? 'true' : undefined}
            onInput={(e) => setForm({ ...form, to: e.currentTarget.value })}
          />
          {errors.to && <p class="err">{errors.to}</p>}
        </div>
        <div class="audit-buttons">
          <button type="submit" class="btn primary" disabled={busy}>
            {t.apply}
          </button>
          <button
            type="button"
            class="btn ghost"
            onClick={() => {
              setForm(NONE);
              void load(NONE);
            }}
          >
            {t.clear}
          </button>
        </div>
      </form>
      {errors[''] && (
        <p class="err banner" role="alert">
          {errors['']}
        </p>
      )}
      <p role="status" class="hint">
        {busy ? t.loading : entries.length ? `${entries.length} ${t.shown}` : t.empty}
      </p>
      {entries.length > 0 && (
        <div class="table-scroll" tabIndex={0} aria-labelledby="settings-title">
          <table class="ops-table">
            <thead>
              <tr>
                <th scope="col">{t.time}</th>
                <th scope="col">{t.actor}</th>
                <th scope="col">{t.action}</th>
                <th scope="col">{t.target}</th>
                <th scope="col">{t.details}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr>
                  <td>
                    <time dateTime={e.at}>{dateTime(e.at, locale)}</time>
                  </td>
                  <td>{who(e.actor)}</td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>{e.target && <code>{e.target}</code>}</td>
                  <td class="audit-details">
                    {Object.entries(e.details)
                      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
                      .join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more && (
        <button
          type="button"
          class="btn"
          disabled={busy}
          onClick={() => void load(applied, entries[entries.length - 1]?.id)}
        >
          {t.more}
        </button>
      )}
    </section>
  );
}
