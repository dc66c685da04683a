import { useEffect, useState } from 'preact/hooks';
import { dateTime } from '../../components/format.js';
import { useStore, useStrings } from '../../state/context.js';
import { LinesInput, NumberInput, SecretInput, SettingsForm, TextArea, TextInput, Toggle } from '../kit/controls.js';
import { errorText, smtpErrorText } from '../kit/errorText.js';
import { settingsStrings } from '../kit/strings.js';
import { useResource, type Resource } from '../kit/useResource.js';
import { mailStrings } from './strings.js';
import './mail.css';

/** `/admin r=mail` as read (docs/api.md "/admin", `mail`): secrets only as `*_set`; sent when replaced. */
interface Smtp {
  host: string | null;
  port: number;
  secure: boolean;
  user: string | null;
  pass_set: boolean;
  pass?: string;
  allow_invalid_certificate: boolean;
  allow_plain_auth: boolean;
}
interface Imap extends Smtp {
  folder: string;
  processed_folder: string | null;
}
interface Mail {
  from_name: string;
  from_address: string | null;
  smtp: Smtp;
  email_notify: {
    customer_on_create: boolean;
    customer_on_reply: boolean;
    agents_on_create: boolean;
    agents_on_customer_reply: boolean;
    agent_emails: string[];
  };
  inbound: { imap: Imap };
  dkim: { domain_name: string | null; key_selector: string | null; private_key_set: boolean; private_key?: string };
  agent_reply_domains: string[];
}

/** POST /admin/mail-test's answer. */
interface TestResult {
  sent: boolean;
  response: string | null;
  error: string | null;
  duration_ms: number;
}

/** A line of `/admin r=outbox`. */
interface OutboxEntry {
  id: string;
  kind: 'mail' | 'webhook';
  state: 'queued' | 'failed' | 'suppressed_test' | 'suppressed_limit';
  to: string[] | null;
  subject: string | null;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
}

const orNull = (v: string) => v.trim() || null;

/** Host, port, TLS, user, write-only password, certificate check, plain text: the same for SMTP and IMAP. */
function Connection<T extends Smtp>(props: {
  prefix: 'smtp' | 'inbound.imap';
  value: T;
  errors: Record<string, string>;
  set: (next: T) => void;
}) {
  const t = useStrings(mailStrings);
  const { value: c, set, prefix } = props;
  // The TLS ports differ by protocol: SMTP's 465 and 587, IMAP's 993 and 143.
  const imap = prefix === 'inbound.imap';
  const id = (f: string) => `mail-${prefix.replace('.', '-')}-${f}`;
  const err = (f: string) => props.errors[`${prefix}.${f}`];
  return (
    <>
      <div class="mail-row">
        <TextInput
          id={id('host')}
          label={t.host}
          error={err('host')}
          value={c.host}
          onChange={(v) => set({ ...c, host: orNull(v) })}
        />
        <NumberInput
          id={id('port')}
          label={t.port}
          error={err('port')}
          min={1}
          max={65535}
          value={c.port}
          onChange={(v) => set({ ...c, port: v as number })}
        />
      </div>
      <Toggle
        id={id('secure')}
        label={imap ? t.imapSecure : t.secure}
        hint={imap ? t.imapSecureHint : t.secureHint}
        checked={c.secure}
        onChange={(v) => set({ ...c, secure: v })}
      />
      <TextInput
        id={id('user')}
        label={t.user}
        error={err('user')}
        value={c.user}
        onChange={(v) => set({ ...c, user: orNull(v) })}
      />
      <SecretInput
        id={id('pass')}
        label={t.password}
        hint={t.passwordHint}
        error={err('pass')}
        isSet={c.pass_set}
        value={c.pass}
        setText={t.set}
        replaceText={t.replace}
        keepText={t.keep}
        onChange={(v) => {
          const { pass: _, ...rest } = c;
          set((v === undefined ? rest : { ...rest, pass: v }) as T);
        }}
      />
      <Toggle
        id={id('invalid-cert')}
        label={t.invalidCert}
        hint={t.invalidCertHint}
        checked={c.allow_invalid_certificate}
        onChange={(v) => set({ ...c, allow_invalid_certificate: v })}
      />
      <Toggle
        id={id('plain-auth')}
        label={t.plainAuth}
        hint={t.plainAuthHint}
        checked={c.allow_plain_auth}
        onChange={(v) => set({ ...c, allow_plain_auth: v })}
      />
      {c.allow_plain_auth && !c.secure && (
        <p class="banner" role="note">
          {t.plainAuthWarning}
        </p>
      )}
    </>
  );
}

/** "Send a test mail": through the settings as saved, with the SMTP server's answer shown. */
function TestMail({ res }: { res: Resource<Mail> }) {
  const s = useStore();
  const t = useStrings(mailStrings);
  const k = useStrings(settingsStrings);
  const [to, setTo] = useState(s.me.value?.email ?? '');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TestResult | null>(null);
  const [error, setError] = useState<string | undefined>();
  const send = async () => {
    setBusy(true);
    setResult(null);
    setError(undefined);
    try {
      setResult(await s.api.adminAction<TestResult>('mail-test', { to }));
    } catch (e) {
      setError(errorText(k, e, s.t.value.networkError));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="settings-sub" aria-labelledby="mail-test-title">
      <h2 id="mail-test-title">{t.test}</h2>
      <p class="hint">{t.testHint}</p>
      {res.dirty && <p class="banner">{t.testUnsaved}</p>}
      <form
        class="mail-test"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <TextInput id="mail-test-to" label={t.testTo} type="email" error={error} value={to} onChange={setTo} />
        <button type="submit" class="btn" disabled={busy || !to}>
          {busy ? t.testSending : t.testSend}
        </button>
      </form>
      <div role="status" class="mail-test-result">
        {result && (
          <p class={result.sent ? 'ok' : 'err'}>
            {result.sent ? t.testSent : t.testFailed}{' '}
            {!result.sent && smtpErrorText(k, result.error) ? (
              smtpErrorText(k, result.error)
            ) : (
              <code>{result.sent ? result.response : (result.error ?? result.response)}</code>
            )}
            {!result.sent && result.response && result.error !== result.response && <code>{result.response}</code>}{' '}
            <span class="hint">({result.duration_ms} ms)</span>
          </p>
        )}
      </div>
    </section>
  );
}

/** Mail in the outbox: waiting, retried, given up. */
function Outbox() {
  const s = useStore();
  const t = useStrings(mailStrings);
  const [entries, setEntries] = useState<OutboxEntry[] | null>(null);
  const load = () =>
    s.api.adminGet<OutboxEntry[]>('outbox', { limit: 50 }).then(
      (list) => setEntries(list.filter((e) => e.kind === 'mail')),
      () => setEntries([]),
    );
  useEffect(() => void load(), []);
  const locale = s.locale.value;
  return (
    <section class="settings-sub" aria-labelledby="mail-outbox-title">
      <div class="mail-head">
        <h2 id="mail-outbox-title">{t.outbox}</h2>
        <button type="button" class="btn small" onClick={() => void load()}>
          {t.refresh}
        </button>
      </div>
      <p class="hint">{t.outboxHint}</p>
      {entries && !entries.length && <p class="empty">{t.outboxEmpty}</p>}
      {entries && entries.length > 0 && (
        <div class="table-scroll" tabIndex={0} aria-labelledby="mail-outbox-title">
          <table class="ops-table">
            <thead>
              <tr>
                <th scope="col">{t.to}</th>
                <th scope="col">{t.subject}</th>
                <th scope="col">{t.state}</th>
                <th scope="col">{t.attempts}</th>
                <th scope="col">{t.nextTry}</th>
                <th scope="col">{t.lastError}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr>
                  <td>{e.to?.join(', ')}</td>
                  <td>{e.subject}</td>
                  <td>
                    <span class={`pill ${e.state}`}>{t[`state_${e.state}`]}</span>
                  </td>
                  <td>{e.attempts}</td>
                  <td>
                    {e.next_attempt_at && (
                      <time dateTime={e.next_attempt_at}>{dateTime(e.next_attempt_at, locale)}</time>
                    )}
                  </td>
                  <td>{e.last_error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Mail: sender, SMTP, notifications, IMAP, DKIM; a test mail; the outbox. */
export function MailSettings() {
  const t = useStrings(mailStrings);
  const mail = useResource<Mail>('mail');
  const e = mail.errors;
  return (
    <>
      <SettingsForm title={t.title} intro={t.intro} resource={mail}>
        {(m, set) => (
          <>
            <fieldset class="plain">
              <legend>{t.sender}</legend>
              <TextInput
                id="mail-from-name"
                label={t.fromName}
                error={e.from_name}
                value={m.from_name}
                onChange={(v) => set({ ...m, from_name: v })}
              />
              <TextInput
                id="mail-from-address"
                label={t.fromAddress}
                hint={t.fromAddressHint}
                type="email"
                error={e.from_address}
                value={m.from_address}
                onChange={(v) => set({ ...m, from_address: orNull(v) })}
              />
            </fieldset>
            <fieldset class="plain">
              <legend>{t.smtp}</legend>
              <Connection prefix="smtp" value={m.smtp} errors={e} set={(smtp) => set({ ...m, smtp })} />
            </fieldset>
            <fieldset class="plain">
              <legend>{t.notify}</legend>
              {(
                [
                  ['customer_on_create', t.customerOnCreate],
                  ['customer_on_reply', t.customerOnReply],
                  ['agents_on_create', t.agentsOnCreate],
                  ['agents_on_customer_reply', t.agentsOnReply],
                ] as const
              ).map(([key, label]) => (
                <Toggle
                  id={`mail-notify-${key}`}
                  label={label}
                  checked={m.email_notify[key]}
                  onChange={(v) => set({ ...m, email_notify: { ...m.email_notify, [key]: v } })}
                />
              ))}
              <LinesInput
                id="mail-agent-emails"
                label={t.agentEmails}
                hint={t.agentEmailsHint}
                param="email_notify.agent_emails"
                errors={e}
                lineText={t.line}
                rows={3}
                list={m.email_notify.agent_emails}
                onChange={(v) => set({ ...m, email_notify: { ...m.email_notify, agent_emails: v } })}
              />
              <LinesInput
                id="mail-agent-reply-domains"
                label={t.replyDomains}
                hint={t.replyDomainsHint}
                param="agent_reply_domains"
                errors={e}
                lineText={t.line}
                rows={2}
                list={m.agent_reply_domains}
                onChange={(v) => set({ ...m, agent_reply_domains: v })}
              />
            </fieldset>
            <fieldset class="plain">
              <legend>{t.inbound}</legend>
              <p class="hint">{t.inboundHint}</p>
              <Connection
                prefix="inbound.imap"
                value={m.inbound.imap}
                errors={e}
                set={(imap) => set({ ...m, inbound: { imap } })}
              />
              <TextInput
                id="mail-imap-folder"
                label={t.folder}
                error={e['inbound.imap.folder']}
                value={m.inbound.imap.folder}
                onChange={(v) => set({ ...m, inbound: { imap: { ...m.inbound.imap, folder: v } } })}
              />
              <TextInput
                id="mail-imap-processed"
                label={t.processedFolder}
                hint={t.processedFolderHint}
                error={e['inbound.imap.processed_folder']}
                value={m.inbound.imap.processed_folder}
                onChange={(v) => set({ ...m, inbound: { imap: { ...m.inbound.imap, processed_folder: orNull(v) } } })}
              />
            </fieldset>
            <fieldset class="plain">
              <legend>{t.dkim}</legend>
              <p class="hint">{t.dkimHint}</p>
              <div class="mail-row">
                <TextInput
                  id="mail-dkim-domain"
                  label={t.domain}
                  error={e['dkim.domain_name']}
                  value={m.dkim.domain_name}
                  onChange={(v) => set({ ...m, dkim: { ...m.dkim, domain_name: orNull(v) } })}
                />
                <TextInput
                  id="mail-dkim-selector"
                  label={t.selector}
                  error={e['dkim.key_selector']}
                  value={m.dkim.key_selector}
                  onChange={(v) => set({ ...m, dkim: { ...m.dkim, key_selector: orNull(v) } })}
                />
              </div>
              <DkimKey value={m.dkim} error={e['dkim.private_key']} set={(dkim) => set({ ...m, dkim })} />
            </fieldset>
          </>
        )}
      </SettingsForm>
      {mail.saved && <TestMail res={mail} />}
      <Outbox />
    </>
  );
}

/** The DKIM key is several lines of PEM: a text box when typed, "set" with Replace when stored. */
function DkimKey(props: { value: Mail['dkim']; error: string | undefined; set: (next: Mail['dkim']) => void }) {
  const t = useStrings(mailStrings);
  const [open, setOpen] = useState(false);
  const { private_key: key, ...rest } = props.value;
  if (props.value.private_key_set && !open && key === undefined)
    return (
      <div class="field" role="group" aria-labelledby="mail-dkim-key-label">
        <span class="label" id="mail-dkim-key-label">
          {t.privateKey}
        </span>
        <span class="secret-input">
          <span>{t.set}</span>
          <button
            type="button"
            class="btn small"
            aria-label={`${t.replace}: ${t.privateKey}`}
            onClick={() => setOpen(true)}
          >
            {t.replace}
          </button>
        </span>
      </div>
    );
  return (
    <TextArea
      id="mail-dkim-key"
      label={t.privateKey}
      error={props.error}
      rows={4}
      value={key ?? ''}
      onChange={(v) => props.set(v.trim() ? { ...rest, private_key: v } : rest)}
    />
  );
}
