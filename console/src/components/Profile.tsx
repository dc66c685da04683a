import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import type { Passkey, TotpEnrolment } from '../api/types.js';
import { fill } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { Field } from './Field.js';
import { dateTime } from './format.js';
import { PasswordForm } from './SignIn.js';

/** The agent's own account: password, two-factor (TOTP) and passkeys. */
export function Profile() {
  const s = useStore();
  const t = s.t.value;
  const agent = s.me.value!;
  useEffect(() => {
    s.title.value = t.profileTitle;
    return () => (s.title.value = '');
  }, [t]);
  return (
    <main id="main" class="profile" tabIndex={-1}>
      <h1>{t.profileTitle}</h1>
      <section class="card" aria-labelledby="account-title">
        <h2 id="account-title">{t.account}</h2>
        <dl class="facts">
          <div>
            <dt>{t.email}</dt>
            <dd>{agent.email}</dd>
          </div>
          <div>
            <dt>{t.nameAndRole}</dt>
            <dd>
              {agent.name} ({agent.role === 'admin' ? t.role_admin : t.role_agent})
            </dd>
          </div>
        </dl>
      </section>
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">{t.changePassword}</h2>
        <PasswordForm idPrefix="profile" />
      </section>
      <TwoFactor />
      <Passkeys />
    </main>
  );
}

function TwoFactor() {
  const s = useStore();
  const t = s.t.value;
  const on = s.me.value!.two_factor_enabled;
  const enrolment = useSignal<TotpEnrolment | null>(null);
  const recovery = useSignal<string[] | null>(null);
  const code = useSignal('');
  const error = useSignal('');
  const busy = useSignal(false);

  const run = async (work: () => Promise<void>) => {
    busy.value = true;
    error.value = '';
    try {
      await work();
    } catch (err) {
      error.value =
        err instanceof ApiError && (err.code === 'invalid_code' || err.param === 'code')
          ? t.invalidCode
          : s.describe(err);
    } finally {
      busy.value = false;
    }
  };
  const start = () => run(async () => void (enrolment.value = await s.api.totpStart()));
  const confirm = (e: Event) => {
    e.preventDefault();
    if (!code.value.trim()) return void (error.value = t.required);
    return run(async () => {
      const { recovery_codes } = await s.api.totpConfirm(code.value.trim());
      recovery.value = recovery_codes;
      enrolment.value = null;
      code.value = '';
      await s.refreshSession();
      s.toasts.show({ text: t.twoFactorNowOn });
    });
  };
  const disable = (e: Event) => {
    e.preventDefault();
    if (!code.value.trim()) return void (error.value = t.required);
    return run(async () => {
      await s.api.totpDisable(code.value.trim());
      code.value = '';
      await s.refreshSession();
      s.toasts.show({ text: t.twoFactorNowOff });
    });
  };
  const codeField = (
    <Field
      id="totp-code"
      label={t.code}
      autocomplete="one-time-code"
      inputMode="numeric"
      value={code.value}
      error={error.value || undefined}
      onInput={(e) => (code.value = e.currentTarget.value)}
    />
  );

  return (
    <section class="card" aria-labelledby="tf-title">
      <h2 id="tf-title">{t.twoFactor}</h2>
      {recovery.value ? (
        <div class="stack">
          <h3>{t.recoveryTitle}</h3>
          <p>{t.recoveryHint}</p>
          <ul class="codes">
            {recovery.value.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <div class="actions">
            <button type="button" class="btn primary" onClick={() => (recovery.value = null)}>
              {t.recoverySaved}
            </button>
          </div>
        </div>
      ) : enrolment.value ? (
        <form class="stack" onSubmit={confirm} noValidate>
          <p>{t.totpScan}</p>
          <img
            class="qr"
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.value.qr_svg)}`}
            alt={t.qrAlt}
            width={200}
            height={200}
          />
          <p>
            {t.secret}: <code class="secret">{enrolment.value.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
          </p>
          <p>{t.totpConfirm}</p>
          {codeField}
          <div class="actions">
            <button type="button" class="btn ghost" onClick={() => (enrolment.value = null)}>
              {t.cancel}
            </button>
            <button type="submit" class="btn primary" disabled={busy.value}>
              {t.verify}
            </button>
          </div>
        </form>
      ) : on ? (
        <form class="stack" onSubmit={disable} noValidate>
          <p>{t.twoFactorOn}</p>
          <p class="hint">{t.totpOffHint}</p>
          {codeField}
          <div class="actions">
            <button type="submit" class="btn danger" disabled={busy.value}>
              {t.turnOff}
            </button>
          </div>
        </form>
      ) : (
        <div class="stack">
          <p>{t.twoFactorOff}</p>
          {error.value && (
            <p class="err" role="alert">
              {error.value}
            </p>
          )}
          <div class="actions">
            <button type="button" class="btn primary" disabled={busy.value} onClick={start}>
              {t.turnOn}
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

function Passkeys() {
  const s = useStore();
  const t = s.t.value;
  const list = useSignal<Passkey[] | null>(null);
  const name = useSignal(t.passkeyDefaultName);
  const error = useSignal('');
  const busy = useSignal(false);
  const count = s.me.value!.passkey_count;

  useEffect(() => {
    s.api.passkeys().then(
      (l) => (list.value = l),
      () => (list.value = null),
    );
  }, [count]);

  async function add(e: Event) {
    e.preventDefault();
    busy.value = true;
    error.value = '';
    try {
      const { startRegistration } = await import('@simplewebauthn/browser');
      const optionsJSON = await s.api.passkeyRegistrationOptions();
      const response = await startRegistration({ optionsJSON });
      const added = await s.api.passkeyAdd(response, name.value.trim() || t.passkeyDefaultName);
      list.value = [...(list.value ?? []), added];
      await s.refreshSession();
      s.toasts.show({ text: t.passkeyAdded });
    } catch (err) {
      error.value = err instanceof ApiError ? s.describe(err) : t.passkeyFailed;
    } finally {
      busy.value = false;
    }
  }
  async function remove(p: Passkey) {
    try {
      await s.api.passkeyRemove(p.id);
      list.value = (list.value ?? []).filter((x) => x.id !== p.id);
      await s.refreshSession();
      s.toasts.show({ text: t.passkeyRemoved });
    } catch (err) {
      s.toasts.show({ text: s.describe(err), error: true });
    }
  }

  return (
    <section class="card" aria-labelledby="pk-title">
      <h2 id="pk-title">{t.passkeys}</h2>
      <p>{t.passkeysHint}</p>
      {list.value ? (
        list.value.length ? (
          <ul class="passkeys">
            {list.value.map((p) => (
              <li key={p.id}>
                <span>{p.name}</span>{' '}
                <span class="muted">{fill(t.addedOn, { when: dateTime(p.created_at, s.locale.value) })}</span>
                <button type="button" class="btn small ghost" onClick={() => void remove(p)}>
                  <span aria-hidden="true">{t.remove}</span>
                  <span class="sr">{fill(t.removePasskey, { name: p.name })}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{t.noPasskeys}</p>
        )
      ) : (
        <p class="muted">{fill(t.passkeyCount, { n: count })}</p>
      )}
      <form class="stack" onSubmit={add} noValidate>
        <Field
          id="passkey-name"
          label={t.passkeyName}
          value={name.value}
          error={error.value || undefined}
          onInput={(e) => (name.value = e.currentTarget.value)}
        />
        <div class="actions">
          <button type="submit" class="btn primary" disabled={busy.value}>
            {t.addPasskey}
          </button>
        </div>
      </form>
    </section>
  );
}
