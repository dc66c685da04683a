import { useEffect, useState } from 'preact/hooks';
import type { TicketEventType } from '@ticketing/server/model';
import { ApiError } from '../../api/client.js';
import { dateTime } from '../../components/format.js';
import { useStore, useStrings } from '../../state/context.js';
import { SecretInput, SettingsForm, ShownOnce, TextInput, Toggle } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import { moduleStrings } from './strings.js';
import './modules.css';

/**
 * The events a webhook may subscribe to, in the order shown. The server declares them (TICKET_EVENTS);
 * the console cannot import that value without zod, so the type checks this list is exactly that one.
 */
const EVENT_ORDER: Record<TicketEventType, number> = {
  'ticket.created': 0,
  'ticket.replied': 1,
  'ticket.note_added': 2,
  'ticket.status_changed': 3,
  'ticket.priority_changed': 4,
  'ticket.assigned': 5,
  'ticket.tags_changed': 6,
  'ticket.merged': 7,
  'ticket.rated': 8,
  'ticket.close_requested': 9,
  'ticket.close_resolved': 10,
  'ticket.deleted': 11,
  'ticket.snoozed': 12,
  'ticket.mentioned': 13,
  'file.uploaded': 14,
};
const EVENTS = (Object.keys(EVENT_ORDER) as TicketEventType[]).sort((a, b) => EVENT_ORDER[a] - EVENT_ORDER[b]);
const MODULES = ['kb', 'uploads', 'rating', 'close_request', 'webhooks'] as const;
type ModuleName = (typeof MODULES)[number];

/** `/admin r=modules` as read: the webhook secret only as `secret_set`; `secret` sent when replaced. */
interface WebhookSettings {
  url: string;
  secret_set?: boolean;
  secret?: string;
  events: string[];
}
interface Module {
  name: ModuleName;
  enabled: boolean;
  settings?: WebhookSettings | Record<string, unknown>;
}

interface LogEntry {
  id: string;
  at: string;
  event: string;
  event_id: string;
  url: string;
  status_code: number | null;
  ok: boolean;
  attempt: number;
  duration_ms: number;
  error: string | null;
}

interface TestResult {
  url: string | null;
  ok: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** `whsec_` and 32 characters from the browser's CSPRNG (the server's own generated secrets look alike). */
function newSecret() {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 is the largest multiple of 62 below 256: bytes above it are dropped, so each character is uniform.
  let out = '';
  while (out.length < 32)
    for (const b of crypto.getRandomValues(new Uint8Array(48))) if (b < 248 && out.length < 32) out += abc[b % 62];
  return `whsec_${out}`;
}

function DeliveryLog() {
  const s = useStore();
  const t = useStrings(moduleStrings);
  const [log, setLog] = useState<LogEntry[] | null>(null);
  const [note, setNote] = useState('');
  const load = () => s.api.adminGet<LogEntry[]>('webhook_log', { limit: 50 }).then(setLog, () => setLog([]));
  useEffect(() => void load(), []);
  // The newest attempt of each delivery decides whether it may be retried.
  const newest = new Map<string, string>();
  for (const e of log ?? []) if (!newest.has(e.event_id)) newest.set(e.event_id, e.id);
  const retry = async (e: LogEntry) => {
    setNote('');
    try {
      await s.api.adminAction('outbox-retry', { id: e.event_id });
      setNote(t.retried);
    } catch (err) {
      setNote(err instanceof ApiError ? err.message : String(err));
    }
    await load();
  };
  const locale = s.locale.value;
  return (
    <section class="settings-sub" aria-labelledby="webhook-log-title">
      <div class="ops-head">
        <h2 id="webhook-log-title">{t.log}</h2>
        <button type="button" class="btn small" onClick={() => void load()}>
          {t.refresh}
        </button>
      </div>
      <p class="hint">{t.logHint}</p>
      <p role="status" class="hint">
        {note}
      </p>
      {log && !log.length && <p class="empty">{t.logEmpty}</p>}
      {log && log.length > 0 && (
        <div class="table-scroll" tabIndex={0} aria-labelledby="webhook-log-title">
          <table class="ops-table">
            <thead>
              <tr>
                <th scope="col">{t.time}</th>
                <th scope="col">{t.event}</th>
                <th scope="col">{t.status}</th>
                <th scope="col">{t.attempt}</th>
                <th scope="col">{t.duration}</th>
                <th scope="col">{t.error}</th>
                <th scope="col">
                  <span class="sr">{t.retry}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.map((e) => (
                <tr>
                  <td>
                    <time dateTime={e.at}>{dateTime(e.at, locale)}</time>
                  </td>
                  <td>{e.event}</td>
                  <td>
                    <span class={e.ok ? 'pill ok' : 'pill failed'}>{e.status_code ?? '—'}</span>
                  </td>
                  <td>{e.attempt}</td>
                  <td>{e.duration_ms} ms</td>
                  <td>{e.error}</td>
                  <td>
                    {!e.ok && newest.get(e.event_id) === e.id && (
                      <button type="button" class="btn small" onClick={() => void retry(e)}>
                        {t.retry}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function TestEvent({ dirty }: { dirty: boolean }) {
  const s = useStore();
  const t = useStrings(moduleStrings);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TestResult | string | null>(null);
  return (
    <section class="settings-sub" aria-labelledby="webhook-test-title">
      <h2 id="webhook-test-title">{t.test}</h2>
      <p class="hint">{t.testHint}</p>
      <button
        type="button"
        class="btn"
        disabled={busy || dirty}
        onClick={() => {
          setBusy(true);
          setResult(null);
          s.api
            .adminAction<TestResult>('webhook-test', {})
            .then(setResult, (e: unknown) => setResult(e instanceof ApiError ? e.message : String(e)))
            .finally(() => setBusy(false));
        }}
      >
        {busy ? t.testing : t.test}
      </button>
      <div role="status" class="webhook-test-result">
        {typeof result === 'string' && <p class="err">{result}</p>}
        {result && typeof result === 'object' && (
          <p class={result.ok ? 'ok' : 'err'}>
            {result.ok ? t.testOk : t.testFailed}: <code>{result.status_code ?? result.error}</code>
            {result.status_code !== null && result.error && <code> {result.error}</code>} ({result.duration_ms} ms)
          </p>
        )}
      </div>
    </section>
  );
}

/** Module switches, the webhook (URL, write-only secret, events), a test event and the delivery log. */
export function ModuleSettings() {
  const t = useStrings(moduleStrings);
  const res = useResource<Module[]>('modules', { list: true });
  const e = res.errors;
  const [once, setOnce] = useState<string | null>(null);
  // The secret the save stored, shown this once: the one the server generated for a new URL
  // (webhook_secrets_created), or the one the admin typed or generated into the password box.
  useEffect(() => {
    if (!res.lastSave) return;
    const sent = res.lastSave.sent.find((m) => m.name === 'webhooks')?.settings as WebhookSettings | undefined;
    const created = res.lastSave.answer.webhook_secrets_created as { url: string; secret: string }[] | undefined;
    const secret = created?.find((c) => c.url === sent?.url)?.secret ?? sent?.secret;
    setOnce(secret ?? null);
  }, [res.lastSave]);
  return (
    <>
      <SettingsForm title={t.title} intro={t.intro} resource={res}>
        {(list, set) => {
          const byName = (name: ModuleName) => list.find((m) => m.name === name);
          const put = (next: Module) =>
            set(byName(next.name) ? list.map((m) => (m.name === next.name ? next : m)) : [...list, next]);
          const hookIndex = list.findIndex((m) => m.name === 'webhooks');
          const hook = byName('webhooks') ?? { name: 'webhooks' as const, enabled: false };
          const hs = (hook.settings ?? { url: '', events: [...EVENTS] }) as WebhookSettings;
          const err = (f: string) => e[`modules.${hookIndex}.settings.${f}`];
          const setHs = (next: WebhookSettings) => put({ ...hook, settings: next });
          return (
            <>
              <fieldset class="plain">
                <legend>{t.modules}</legend>
                {MODULES.map((name) => (
                  <Toggle
                    id={`module-${name}`}
                    label={t[`mod_${name}`]}
                    error={e[`modules.${list.findIndex((m) => m.name === name)}.enabled`]}
                    checked={byName(name)?.enabled ?? false}
                    onChange={(v) => put({ ...(byName(name) ?? { name }), enabled: v })}
                  />
                ))}
                {e.modules && <p class="err">{e.modules}</p>}
              </fieldset>
              <fieldset class="plain">
                <legend>{t.webhook}</legend>
                <TextInput
                  id="webhook-url"
                  label={t.url}
                  hint={t.urlHint}
                  type="url"
                  error={err('url')}
                  value={hs.url}
                  onChange={(v) => setHs({ ...hs, url: v.trim() })}
                />
                <SecretInput
                  id="webhook-secret"
                  label={t.secret}
                  hint={t.secretHint}
                  error={err('secret')}
                  isSet={Boolean(hs.secret_set)}
                  value={hs.secret}
                  setText={t.set}
                  replaceText={t.replace}
                  keepText={t.keep}
                  onChange={(v) => {
                    const { secret: _, ...rest } = hs;
                    setHs(v === undefined ? rest : { ...rest, secret: v });
                  }}
                  extra={
                    <button type="button" class="btn small" onClick={() => setHs({ ...hs, secret: newSecret() })}>
                      {t.generate}
                    </button>
                  }
                />
                <fieldset class="events">
                  <legend>{t.events}</legend>
                  {err('events') && <p class="err">{err('events')}</p>}
                  <div class="events-grid">
                    {EVENTS.map((ev) => (
                      <label>
                        <input
                          type="checkbox"
                          checked={hs.events.includes(ev)}
                          onChange={(x) =>
                            setHs({
                              ...hs,
                              events: x.currentTarget.checked
                                ? EVENTS.filter((n) => n === ev || hs.events.includes(n))
                                : hs.events.filter((n) => n !== ev),
                            })
                          }
                        />{' '}
                        <code>{ev}</code>
                      </label>
                    ))}
                  </div>
                </fieldset>
              </fieldset>
            </>
          );
        }}
      </SettingsForm>
      {once && (
        <ShownOnce
          title={t.secretOnce}
          value={once}
          hint={t.secretOnceHint}
          doneLabel={t.done}
          onDone={() => setOnce(null)}
        />
      )}
      {res.saved && <TestEvent dirty={res.dirty} />}
      <DeliveryLog />
    </>
  );
}
