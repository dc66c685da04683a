import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import { useDebounced, useStore } from '../state/context.js';
import { LIMITS } from '../state/limits.js';
import type { KbListItem } from '../types.js';
import { Attachments } from './Attachments.js';
import { CustomField, Field } from './Field.js';
import { lazy } from './lazy.js';
import { Offline } from './Offline.js';

// Only sites with Cloudflare Turnstile switched on need it.
// The form's checks are only needed at the first send: a file of their own, fetched while the form is
// filled in. Should it fail to load (offline), the server's checks still answer field by field.
let checks: Promise<typeof import('../state/validate.js') | null> | undefined;
const loadChecks = () =>
  (checks ??= import('../state/validate.js').catch(() => {
    checks = undefined;
    return null;
  }));

const Turnstile = lazy(() => import('./Turnstile.js').then((m) => m.Turnstile));

type Key = 'name' | 'email' | 'category' | 'subject' | 'message';

/**
 * The new-ticket form. Every problem shows at once, next to its field, before anything is sent; what
 * the API refuses lands next to the field that `param` names. What is typed (all but files) is kept
 * as a draft on this device until the ticket is sent.
 */
export function NewTicket() {
  const s = useStore();
  const { t, config } = s;
  const pre = s.prefill.value;
  const who = s.identity.value;
  const draft = s.loadNewDraft();
  const me = s.loadMe();
  // What the customer typed last time wins over what the page prefills, which wins over identify(),
  // which wins over the name and email of the last ticket filed on this device.
  const v = useSignal<Record<Key, string>>({
    name: draft.name || who.name || me.name || '',
    email: draft.email || who.email || me.email || '',
    category: draft.category || pre.category || '',
    subject: draft.subject || pre.subject || '',
    message: draft.message || pre.message || '',
  });
  const custom = useSignal<Record<string, string>>({ ...pre.fields, ...draft.fields });
  const files = useSignal<File[]>([]);
  const errors = useSignal<Record<string, string>>({});
  const general = useSignal('');
  const busy = useSignal(false);
  const suggestions = useSignal<KbListItem[]>([]);
  const token = useSignal('');
  const form = useRef<HTMLFormElement>(null);
  /** Set when errors were just shown: the first invalid field gets focus once they are rendered. */
  const focusError = useRef(false);
  // One key per ticket being written: a retry after a failure cannot file it twice.
  const idem = useRef(s.uuid());
  const category = config.categories.find((c) => c.id === v.value.category);

  // Each change is kept as the draft, and clears that field's error: it is re-checked on sending.
  const changed = (param: string) => {
    s.saveNewDraft({ ...v.value, fields: custom.value });
    if (errors.value[param]) {
      const { [param]: _, ...rest } = errors.value;
      errors.value = rest;
    }
  };
  const set = (k: Key, value: string) => {
    v.value = { ...v.value, [k]: value };
    changed(k);
  };
  const setCustom = (id: string, value: string) => {
    custom.value = { ...custom.value, [id]: value };
    changed(`fields.${id}`);
  };

  useEffect(() => void loadChecks(), []);
  useEffect(() => {
    // identify() after the form opened fills what is still empty
    const next = { ...v.value };
    if (!next.name && who.name) next.name = who.name;
    if (!next.email && who.email) next.email = who.email;
    v.value = next;
  }, [who.name, who.email]);

  useEffect(() => {
    if (!focusError.current) return;
    focusError.current = false;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .drop .err')?.focus();
  });

  useDebounced(v.value.subject, 300, async (q) => {
    if (config.modules.kb) suggestions.value = (await s.searchKb(q)).slice(0, 3);
  });

  /** Shows every problem at once, moves focus to the first and says how many there are. */
  function show(found: Record<string, string>) {
    errors.value = found;
    const n = Object.keys(found).length;
    if (!n) return;
    focusError.current = true;
    s.announcement.value = s.count(t.fixFields, n);
  }

  async function submit(e: Event) {
    e.preventDefault();
    if (busy.value) return;
    general.value = '';
    const found =
      (await loadChecks())?.checkNewTicket(t, v.value, custom.value, category, config.form.require_category) ?? {};
    show(found);
    if (Object.keys(found).length) return;
    const body = new FormData();
    for (const [k, value] of Object.entries(v.value)) if (value) body.append(k, value);
    if (category)
      for (const f of category.fields) if (custom.value[f.id]) body.append(`fields[${f.id}]`, custom.value[f.id]!);
    if (config.form.show_page_url && /^https?:/.test(location.href)) body.append('page_url', location.href);
    if (token.value) body.append('cf-turnstile-response', token.value);
    for (const f of files.value) body.append('attachments[]', f);
    busy.value = true;
    try {
      await s.createTicket(body, idem.current);
      idem.current = s.uuid();
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.code !== 'rate_limited') {
        // Next to the field the API names; what names no field shows above the button.
        const list = err.details.length ? err.details : err.param ? [{ param: err.param, message: err.message }] : [];
        const next: Record<string, string> = {};
        for (const d of list) next[d.param.startsWith('attachments') ? 'attachments' : d.param] ??= d.message;
        show(next);
        general.value = err.code === 'validation_failed' && list.length ? '' : err.message;
        // The request was answered: a corrected resend is a new request.
        idem.current = s.uuid();
      } else {
        general.value = s.describe(err);
      }
    } finally {
      busy.value = false;
    }
  }

  const text = (k: Key, label: string, max: number, extra: Record<string, unknown> = {}) => (
    <Field id={`tk-${k}`} label={label} required error={errors.value[k]}>
      {(a) => (
        <input {...a} {...extra} maxLength={max} value={v.value[k]} onInput={(e) => set(k, e.currentTarget.value)} />
      )}
    </Field>
  );

  return (
    <form ref={form} onSubmit={submit} noValidate>
      <Offline />
      <p class="muted">{t.requiredHint}</p>
      {text('name', t.name, LIMITS.name, { type: 'text', autocomplete: 'name' })}
      {text('email', t.email, LIMITS.email, { type: 'email', autocomplete: 'email' })}
      {config.categories.length > 0 && (
        <Field
          id="tk-category"
          label={t.category}
          required={config.form.require_category}
          error={errors.value.category}
        >
          {(a) => (
            <select {...a} value={v.value.category} onChange={(e) => set('category', e.currentTarget.value)}>
              <option value="">{t.chooseCategory}</option>
              {config.categories.map((c) => (
                <option value={c.id}>{c.name}</option>
              ))}
            </select>
          )}
        </Field>
      )}
      {category?.fields.map((f) => (
        <CustomField
          field={f}
          value={custom.value[f.id] ?? ''}
          error={errors.value[`fields.${f.id}`]}
          onChange={(value) => setCustom(f.id, value)}
        />
      ))}
      {text('subject', t.subject, LIMITS.subject, { type: 'text' })}
      {suggestions.value.length > 0 && (
        <div class="notice" aria-live="polite">
          <p>{t.suggested}</p>
          <ul class="list">
            {suggestions.value.map((a) => (
              <li>
                <button type="button" class="link" onClick={() => s.go({ name: 'article', id: a.id })}>
                  {a.title}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <Field id="tk-message" label={t.message} required error={errors.value.message}>
        {(a) => <textarea {...a} value={v.value.message} onInput={(e) => set('message', e.currentTarget.value)} />}
      </Field>
      {config.modules.uploads && config.form.allow_attachments && (
        <Attachments
          id="tk-files"
          files={files.value}
          onChange={(f) => (files.value = f)}
          error={errors.value.attachments}
        />
      )}
      {config.turnstile.enabled && config.turnstile.site_key && (
        <Turnstile siteKey={config.turnstile.site_key} onToken={(x) => (token.value = x)} />
      )}
      {config.form.privacy_notice && <p class="muted">{config.form.privacy_notice}</p>}
      {general.value && (
        <p class="err" role="alert">
          {general.value}
        </p>
      )}
      <button class="btn" type="submit" disabled={busy.value}>
        {busy.value ? t.sending : general.value ? t.retry : t.send}
      </button>
    </form>
  );
}
