import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import { useDebounced, useStore } from '../state/context.js';
import type { KbListItem } from '../types.js';
import { Attachments } from './Attachments.js';
import { CustomField, Field } from './Field.js';
import { Offline } from './Offline.js';
import { Turnstile } from './Turnstile.js';

/** The new-ticket form. Errors from the API appear next to the field that `param` names. */
export function NewTicket() {
  const s = useStore();
  const { t, config } = s;
  const pre = s.prefill.value;
  const who = s.identity.value;
  const v = useSignal<Record<string, string>>({
    name: who.name ?? '',
    email: who.email ?? '',
    category: pre.category ?? '',
    subject: pre.subject ?? '',
    message: pre.message ?? '',
  });
  const custom = useSignal<Record<string, string>>({ ...pre.fields });
  const files = useSignal<File[]>([]);
  const errors = useSignal<Record<string, string>>({});
  const general = useSignal('');
  const busy = useSignal(false);
  const suggestions = useSignal<KbListItem[]>([]);
  const token = useSignal('');
  // One key per ticket being written: a retry after a failure cannot file it twice.
  const idem = useRef(s.uuid());
  const category = config.categories.find((c) => c.id === v.value.category);
  const set = (k: string, value: string) => (v.value = { ...v.value, [k]: value });

  useEffect(() => {
    // identify() after the form opened fills what is still empty
    const next = { ...v.value };
    if (!next.name && who.name) next.name = who.name;
    if (!next.email && who.email) next.email = who.email;
    v.value = next;
  }, [who.name, who.email]);

  useDebounced(v.value.subject ?? '', 300, async (q) => {
    if (config.modules.kb) suggestions.value = (await s.searchKb(q)).slice(0, 3);
  });

  async function submit(e: Event) {
    e.preventDefault();
    if (busy.value) return;
    const missing: Record<string, string> = {};
    for (const k of ['name', 'email', 'subject', 'message']) if (!v.value[k]!.trim()) missing[k] = t.required;
    if (config.form.require_category && !v.value.category) missing.category = t.required;
    errors.value = missing;
    general.value = '';
    if (Object.keys(missing).length) return;
    const form = new FormData();
    for (const [k, value] of Object.entries(v.value)) if (value) form.append(k, value);
    if (category)
      for (const f of category.fields) if (custom.value[f.id]) form.append(`fields[${f.id}]`, custom.value[f.id]!);
    if (config.form.show_page_url && /^https?:/.test(location.href)) form.append('page_url', location.href);
    if (token.value) form.append('cf-turnstile-response', token.value);
    for (const f of files.value) form.append('attachments[]', f);
    busy.value = true;
    try {
      await s.createTicket(form, idem.current);
      idem.current = s.uuid();
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.code !== 'rate_limited') {
        // Next to the field the API names; what names no field shows above the button.
        const list = err.details.length ? err.details : err.param ? [{ param: err.param, message: err.message }] : [];
        const next: Record<string, string> = {};
        for (const d of list) next[d.param.startsWith('attachments') ? 'attachments' : d.param] ??= d.message;
        errors.value = next;
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

  const text = (k: string, label: string, type: 'text' | 'email' = 'text', extra: Record<string, unknown> = {}) => (
    <Field id={`tk-${k}`} label={label} error={errors.value[k]}>
      {(a) => (
        <input
          {...a}
          {...extra}
          type={type as 'text'}
          value={v.value[k]}
          onInput={(e) => set(k, e.currentTarget.value)}
        />
      )}
    </Field>
  );

  return (
    <form onSubmit={submit} noValidate>
      <Offline />
      {text('name', t.name, 'text', { autocomplete: 'name' })}
      {text('email', t.email, 'email', { autocomplete: 'email' })}
      {config.categories.length > 0 && (
        <Field id="tk-category" label={t.category} error={errors.value.category}>
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
          onChange={(value) => (custom.value = { ...custom.value, [f.id]: value })}
        />
      ))}
      {text('subject', t.subject)}
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
      <Field id="tk-message" label={t.message} error={errors.value.message}>
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
