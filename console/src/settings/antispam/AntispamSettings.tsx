import { useEffect, useState } from 'preact/hooks';
import { useStore, useStrings } from '../../state/context.js';
import { LinesInput, SecretInput, SettingsForm, SubForm, TextInput, Toggle } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import { antispamStrings } from './strings.js';

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
      <div class="table-scroll" tabIndex={0} aria-labelledby="antispam-limits">
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
              <LinesInput
                id={`antispam-${name}`}
                label={`${t[name]} (${b[name].length} ${t.entries})`}
                hint={t[`${name}Hint`]}
                param={name}
                errors={lists.errors}
                lineText={t.line}
                rows={5}
                list={b[name]}
                onChange={(v) => set({ ...b, [name]: v })}
              />
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
