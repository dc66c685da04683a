import { useEffect, useState } from 'preact/hooks';
import { useStore, useStrings } from '../../state/context.js';
import { SecretInput, SettingsForm, SubForm, TextArea, TextInput, Toggle } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import { antispamStrings } from './strings.js';
import './antispam.css';

/** `/admin r=blocklists`: docs/api.md "/admin", `blocklists`. */
interface Blocklists {
  emails: string[];
  domains: string[];
  ips: string[];
  keywords: string[];
}
type ListName = keyof Blocklists;
const LISTS: ListName[] = ['emails', 'domains', 'ips', 'keywords'];

/** `/admin r=turnstile` as read: the secret only as `secret_set`; `secret` is sent when replaced. */
interface Turnstile {
  enabled: boolean;
  site_key: string | null;
  secret_set: boolean;
  secret?: string;
}

/** `/admin r=limits` (read-only: environment variables). */
interface Limits {
  rate_limit: {
    enabled: boolean;
    pk_per_minute: number;
    pk_creates_per_10_minutes: number;
    sk_per_minute: number;
    key_failures_per_minute: number;
  };
  quotas: { ticket_files: number; ticket_bytes: number; upload_bytes_per_hour: number };
  customer_mail_per_hour: number;
}

const entries = (text: string) => text.split('\n').map((l) => l.trim());
/** Line numbers (1-based) of the entries sent, so the server's `emails.3` points at its line. */
const lineNumbers = (text: string) => entries(text).flatMap((l, i) => (l ? [i + 1] : []));

/**
 * One list as a text box, one entry a line. The typed text is kept as typed (blank lines too); the
 * draft holds its non-blank lines. A refused entry is named by its line.
 */
function ListBox(props: {
  name: ListName;
  list: string[];
  errors: Record<string, string>;
  onChange: (list: string[]) => void;
}) {
  const t = useStrings(antispamStrings);
  const [text, setText] = useState(props.list.join('\n'));
  // The draft changed from outside (load, discard, the stored answer): show it.
  const shown =
    JSON.stringify(entries(text).filter(Boolean)) === JSON.stringify(props.list) ? text : props.list.join('\n');
  const lines = lineNumbers(shown);
  const prefix = `${props.name}.`;
  const problems = Object.entries(props.errors)
    .filter(([param]) => param === props.name || param.startsWith(prefix))
    .map(([param, message]) => {
      const index = Number(param.slice(prefix.length).split('.')[0]);
      const line = Number.isInteger(index) ? lines[index] : undefined;
      return line ? `${t.line} ${line}: ${message}` : message;
    });
  return (
    <TextArea
      id={`antispam-${props.name}`}
      label={`${t[props.name]} (${props.list.length} ${t.entries})`}
      hint={t[`${props.name}Hint`]}
      error={problems.length ? problems.join(' · ') : undefined}
      rows={5}
      value={shown}
      onChange={(v) => {
        setText(v);
        props.onChange(entries(v).filter(Boolean));
      }}
    />
  );
}

function LimitsTable() {
  const s = useStore();
  const t = useStrings(antispamStrings);
  const [limits, setLimits] = useState<Limits | null>(null);
  useEffect(() => {
    s.api.adminGet<Limits>('limits').then(setLimits, () => setLimits(null));
  }, []);
  if (!limits) return null;
  const rl = limits.rate_limit;
  const mb = (bytes: number) => Math.round(bytes / 1048576);
  const rows: [string, string | number, string][] = [
    [t.rl_enabled, rl.enabled ? t.on : t.off, 'TICKETING_RATE_LIMIT'],
    [t.rl_pk, rl.pk_per_minute, 'TICKETING_RATE_LIMIT_PK_PER_MINUTE'],
    [t.rl_pk_creates, rl.pk_creates_per_10_minutes, 'TICKETING_RATE_LIMIT_PK_CREATES_PER_10_MINUTES'],
    [t.rl_sk, rl.sk_per_minute, 'TICKETING_RATE_LIMIT_SK_PER_MINUTE'],
    [t.rl_failures, rl.key_failures_per_minute, 'TICKETING_KEY_FAILURES_PER_MINUTE'],
    [t.q_files, limits.quotas.ticket_files, 'TICKETING_QUOTA_TICKET_FILES'],
    [t.q_bytes, mb(limits.quotas.ticket_bytes), 'TICKETING_QUOTA_TICKET_MB'],
    [t.q_upload, mb(limits.quotas.upload_bytes_per_hour), 'TICKETING_QUOTA_UPLOAD_MB_PER_HOUR'],
    [t.mail_hour, limits.customer_mail_per_hour, 'TICKETING_CUSTOMER_MAIL_PER_HOUR'],
  ];
  return (
    <section class="settings-sub" aria-labelledby="antispam-limits">
      <h2 id="antispam-limits">{t.limits}</h2>
      <p class="hint">{t.limitsIntro}</p>
      <div class="table-scroll">
        <table class="ops-table">
          <thead>
            <tr>
              <th scope="col">{t.setting}</th>
              <th scope="col">{t.value}</th>
              <th scope="col">{t.variable}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, value, env]) => (
              <tr>
                <th scope="row">{label}</th>
                <td>{value}</td>
                <td>
                  <code>{env}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Blocklists, Turnstile, and the rate limits in force. */
export function AntispamSettings() {
  const t = useStrings(antispamStrings);
  const lists = useResource<Blocklists>('blocklists');
  const turnstile = useResource<Turnstile>('turnstile');
  return (
    <>
      <SettingsForm title={t.title} intro={t.intro} resource={lists}>
        {(b, set) => (
          <fieldset class="plain">
            <legend>{t.blocklists}</legend>
            <p class="hint">{t.blocklistsHint}</p>
            {LISTS.map((name) => (
              <ListBox name={name} list={b[name]} errors={lists.errors} onChange={(v) => set({ ...b, [name]: v })} />
            ))}
          </fieldset>
        )}
      </SettingsForm>
      <SubForm id="antispam-turnstile" title={t.turnstile} intro={t.turnstileIntro} resource={turnstile}>
        {(ts, set) => (
          <>
            <Toggle
              id="turnstile-enabled"
              label={t.enabled}
              error={turnstile.errors.enabled}
              checked={ts.enabled}
              onChange={(v) => set({ ...ts, enabled: v })}
            />
            <TextInput
              id="turnstile-site-key"
              label={t.siteKey}
              error={turnstile.errors.site_key}
              value={ts.site_key}
              onChange={(v) => set({ ...ts, site_key: v.trim() || null })}
            />
            <SecretInput
              id="turnstile-secret"
              label={t.secret}
              hint={ts.secret_set ? t.secretSet : t.secretUnset}
              error={turnstile.errors.secret}
              isSet={ts.secret_set}
              value={ts.secret}
              setText="••••••••"
              replaceText={t.replace}
              keepText={t.keep}
              onChange={(v) => {
                const { secret: _, ...rest } = ts;
                set(v === undefined ? rest : { ...rest, secret: v });
              }}
            />
          </>
        )}
      </SubForm>
      <LimitsTable />
    </>
  );
}
