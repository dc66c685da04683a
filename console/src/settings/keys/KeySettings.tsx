import type { ApiKeyView } from '@ticketing/server/model';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api/client.js';
import { Modal } from '../../components/Modal.js';
import { dateTime } from '../../components/format.js';
import { fill } from '../../i18n/t.js';
import { useStore, useStrings } from '../../state/context.js';
import { Choice, ShownOnce, TextArea, TextInput } from '../kit/controls.js';
import '../kit/entries.css';
import { keyStrings } from './strings.js';

type Kind = ApiKeyView['kind'];
type Mode = ApiKeyView['mode'];
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
/** `origins.1` → the message, as the API names the refused entry. */
const byParam = (e: unknown) =>
  e instanceof ApiError ? Object.fromEntries(e.details.map((d) => [d.param, d.message])) : {};
const firstError = (errors: Record<string, string>, prefix: string) =>
  Object.entries(errors).find(([p]) => p === prefix || p.startsWith(`${prefix}.`))?.[1];

/** `/admin r=keys`: the running server's API keys, made, restricted to origins and revoked without a restart. */
export function KeySettings() {
  const s = useStore();
  const t = useStrings(keyStrings);
  const [keys, setKeys] = useState<ApiKeyView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [widgetKey, setWidgetKey] = useState<string | null>(null);
  const [draft, setDraft] = useState({ kind: 'public' as Kind, mode: 'live' as Mode, label: '', origins: '' });
  const [newErrors, setNewErrors] = useState<Record<string, string>>({});
  const [shown, setShown] = useState<string | null>(null);
  const [origins, setOrigins] = useState<Record<string, string>>({});
  const [originErrors, setOriginErrors] = useState<Record<string, string>>({});
  const [revoking, setRevoking] = useState<ApiKeyView | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    s.api.adminGet<ApiKeyView[]>('keys').then(setKeys, (e: unknown) => setError(s.describe(e)));
    // Which public key the snippet of Design and snippet carries: revoking it breaks the site's widget.
    fetch(`${s.api.base}/widget-config`, { credentials: 'same-origin' })
      .then((r) => r.json())
      .then((c: { public_key?: string | null }) => setWidgetKey(c.public_key?.slice(0, 12) ?? null))
      .catch(() => {});
  }, []);

  const kinds = [
    { value: 'public' as Kind, label: t.public },
    { value: 'secret' as Kind, label: t.secret },
  ];
  const modes = [
    { value: 'live' as Mode, label: t.live },
    { value: 'test' as Mode, label: t.test },
  ];
  const replace = (k: ApiKeyView) => setKeys((list) => list?.map((x) => (x.id === k.id ? k : x)) ?? [k]);
  const when = (iso: string | null) => (iso ? dateTime(iso, s.locale.value) : t.never);

  async function create(e: Event) {
    e.preventDefault();
    setNewErrors({});
    setError(null);
    setBusy(true);
    try {
      const { kind, mode, label } = draft;
      const body = { kind, mode, label: label.trim() || null, origins: kind === 'public' ? lines(draft.origins) : [] };
      const res = await s.api.adminPost<{ key: string; api_key: ApiKeyView }>('keys', body);
      setKeys((list) => [...(list ?? []), res.api_key]);
      setShown(res.key);
      setDraft({ ...draft, label: '', origins: '' });
    } catch (err) {
      const fields = byParam(err);
      if (Object.keys(fields).length) setNewErrors(fields);
      else setError(s.describe(err));
    } finally {
      setBusy(false);
    }
  }

  async function saveOrigins(k: ApiKeyView) {
    setOriginErrors({});
    setError(null);
    setBusy(true);
    try {
      const res = await s.api.adminPost<{ api_key: ApiKeyView }>('keys', {
        id: k.id,
        origins: lines(origins[k.id] ?? k.origins.join('\n')),
      });
      replace(res.api_key);
      setOrigins(({ [k.id]: _, ...rest }) => rest);
      s.toasts.show({ text: fill(t.originsSaved, { prefix: k.prefix }) });
    } catch (err) {
      const fields = byParam(err);
      if (Object.keys(fields).length) setOriginErrors({ [k.id]: firstError(fields, 'origins') ?? '' });
      else setError(s.describe(err));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(k: ApiKeyView) {
    setBusy(true);
    try {
      await s.api.adminDelete('keys', k.id);
      replace({ ...k, state: 'revoked', revoked_at: new Date().toISOString() });
      s.toasts.show({ text: fill(t.revoked_, { prefix: k.prefix }) });
    } catch (err) {
      setError(s.describe(err));
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  }

  return (
    <section class="settings-page" aria-labelledby="settings-title">
      <h1 id="settings-title">{t.title}</h1>
      <p class="intro">{t.intro}</p>
      {error && (
        <p class="err banner" role="alert">
          {error}
        </p>
      )}
      {shown && (
        <ShownOnce title={t.keyFor} value={shown} hint={t.keyOnce} doneLabel={t.done} onDone={() => setShown(null)} />
      )}
      {keys && (
        <div class="entries-scroll">
          <table class="entries">
            <thead>
              <tr>
                <th scope="col">{t.key}</th>
                <th scope="col">{t.mode}</th>
                <th scope="col">{t.origins}</th>
                <th scope="col">{t.created}</th>
                <th scope="col">{t.lastUsed}</th>
                <th scope="col">{t.actions}</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => {
                const editable = k.kind === 'public' && k.state === 'active';
                const id = `origins-${k.id}`;
                return (
                  <tr key={k.id} class={k.state === 'revoked' ? 'muted' : undefined}>
                    <th scope="row">
                      <code>{k.prefix}…</code>
                      <div class="muted">
                        {k.kind === 'public' ? t.public : t.secret}
                        {k.label && ` · ${k.label}`}
                      </div>
                      {k.state === 'revoked' && <span class="badge">{t.revoked}</span>}
                    </th>
                    <td data-label={t.mode}>{k.mode === 'live' ? t.live : t.test}</td>
                    <td data-label={t.origins}>
                      {editable ? (
                        <div class="key-origins">
                          <TextArea
                            id={id}
                            rows={2}
                            label={fill(t.originsOf, { prefix: k.prefix })}
                            value={origins[k.id] ?? k.origins.join('\n')}
                            error={originErrors[k.id]}
                            onChange={(v) => setOrigins({ ...origins, [k.id]: v })}
                          />
                          <button
                            type="button"
                            class="btn small"
                            disabled={busy || origins[k.id] === undefined}
                            aria-label={`${t.saveOrigins}: ${k.prefix}`}
                            onClick={() => void saveOrigins(k)}
                          >
                            {t.saveOrigins}
                          </button>
                        </div>
                      ) : k.kind === 'public' ? (
                        k.origins.join(', ') || t.anyOrigin
                      ) : (
                        t.notApplicable
                      )}
                    </td>
                    <td data-label={t.created}>{when(k.created_at)}</td>
                    <td data-label={t.lastUsed}>{when(k.last_used_at)}</td>
                    <td>
                      {k.state === 'active' && (
                        <button
                          type="button"
                          class="btn small danger"
                          disabled={busy}
                          aria-label={`${t.revoke}: ${k.prefix}`}
                          onClick={() => setRevoking(k)}
                        >
                          {t.revoke}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <form class="settings-form stack entry-new" noValidate onSubmit={create}>
        <h2>{t.create}</h2>
        <Choice
          id="key-kind"
          label={t.kind}
          value={draft.kind}
          options={kinds}
          error={newErrors.kind}
          onChange={(kind) => setDraft({ ...draft, kind })}
        />
        <Choice
          id="key-mode"
          label={t.mode}
          hint={t.liveHint}
          value={draft.mode}
          options={modes}
          error={newErrors.mode}
          onChange={(mode) => setDraft({ ...draft, mode })}
        />
        <TextInput
          id="key-label"
          label={t.label}
          hint={t.labelHint}
          value={draft.label}
          error={newErrors.label}
          onChange={(label) => setDraft({ ...draft, label })}
        />
        {draft.kind === 'public' && (
          <TextArea
            id="key-origins"
            rows={3}
            label={t.origins}
            hint={t.originsHint}
            value={draft.origins}
            error={firstError(newErrors, 'origins')}
            onChange={(v) => setDraft({ ...draft, origins: v })}
          />
        )}
        <div>
          <button type="submit" class="btn primary" disabled={busy}>
            {t.createButton}
          </button>
        </div>
      </form>

      {revoking && (
        <Modal title={fill(t.revokeTitle, { prefix: revoking.prefix })} onClose={() => setRevoking(null)}>
          <p>{t.revokeText}</p>
          {revoking.prefix === widgetKey && <p class="err">{t.revokeWidget}</p>}
          <div class="actions">
            <button type="button" class="btn danger" disabled={busy} onClick={() => void revoke(revoking)}>
              {t.revoke}
            </button>
            <button type="button" class="btn ghost" onClick={() => setRevoking(null)}>
              {t.cancel}
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}
