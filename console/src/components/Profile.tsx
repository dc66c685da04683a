import { useSignal, type Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import type { Passkey, TotpEnrolment } from '../api/types.js';
import { fill, isLocale, LANGUAGE_NAMES } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { Field } from './Field.js';
import { dateTime } from './format.js';
import { passkeyRefusal } from './passkeyRefusal.js';
import { PasswordForm, waitText } from './SignIn.js';

/** An action the server held back for a re-check (403 verification_required), to run again after it. */
type Retry = Signal<(() => Promise<void>) | null>;

/** True (and the action kept for later) when `err` asks for a re-check of the password first. */
const heldForCheck = (retry: Retry, err: unknown, again: () => Promise<void>) => {
  if (!(err instanceof ApiError && err.code === 'verification_required')) return false;
  retry.value = again;
  return true;
};

/** The agent's own account: password, two-factor (TOTP) and passkeys. */
export function Profile() {
  const s = useStore();
  const t = s.t.value;
  const agent = s.me.value!;
  const retry = useSignal<(() => Promise<void>) | null>(null);
  useEffect(() => {
    s.title.value = t.profileTitle;
    return () => (s.title.value = '');
  }, [t]);
  return (
    <main id="main" class="profile" tabIndex={-1}>
      <h1>{t.profileTitle}</h1>
      {retry.value && <Reverify retry={retry} />}
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
      <OwnProfile />
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">{t.changePassword}</h2>
        <PasswordForm idPrefix="profile" />
      </section>
      <TwoFactor retry={retry} />
      <Passkeys retry={retry} />
    </main>
  );
}

/**
 * Asks for the password (or, with two-factor on, a code) when the server wants a recent check
 * (POST /v1/session/verify), then runs the held action again. Errors stand next to their field.
 */
function Reverify({ retry }: { retry: Retry }) {
  const s = useStore();
  const t = s.t.value;
  const password = useSignal('');
  const code = useSignal('');
  const errors = useSignal<{ password?: string; code?: string }>({});
  const busy = useSignal(false);
  const twoFactor = s.me.value!.two_factor_enabled;
  const submit = async (e: Event) => {
    e.preventDefault();
    const byCode = !password.value && code.value.trim() !== '';
    if (!password.value && !byCode) return void (errors.value = { password: t.required });
    busy.value = true;
    errors.value = {};
    try {
      await s.api.verify(byCode ? { code: code.value.trim() } : { password: password.value });
    } catch (err) {
      const field = byCode ? 'code' : 'password';
      const text =
        err instanceof ApiError && err.code === 'validation_failed'
          ? byCode
            ? t.invalidCode
            : t.reverifyWrongPassword
          : err instanceof ApiError && err.code === 'too_many_attempts'
            ? fill(t.tooManyAttempts, { wait: waitText(err.retryAfter, t) })
            : s.describe(err);
      errors.value = { [field]: text };
      busy.value = false;
      return;
    }
    const again = retry.value;
    retry.value = null;
    busy.value = false;
    await again?.();
  };
  return (
    <section class="card" aria-labelledby="reverify-title">
      <h2 id="reverify-title">{t.reverifyTitle}</h2>
      <p>{t.reverifyHint}</p>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <Field
          id="reverify-password"
          type="password"
          label={t.currentPassword}
          autocomplete="current-password"
          value={password.value}
          error={errors.value.password}
          onInput={(e) => (password.value = e.currentTarget.value)}
        />
        {twoFactor && (
          <Field
            id="reverify-code"
            label={t.reverifyCode}
            autocomplete="one-time-code"
            inputMode="numeric"
            value={code.value}
            error={errors.value.code}
            onInput={(e) => (code.value = e.currentTarget.value)}
          />
        )}
        <div class="actions">
          <button type="button" class="btn ghost" onClick={() => (retry.value = null)}>
            {t.cancel}
          </button>
          <button type="submit" class="btn primary" disabled={busy.value}>
            {t.reverifyConfirm}
          </button>
        </div>
      </form>
    </section>
  );
}

function TwoFactor({ retry }: { retry: Retry }) {
  const s = useStore();
  const t = s.t.value;
  const on = s.me.value!.two_factor_enabled;
  const enrolment = useSignal<TotpEnrolment | null>(null);
  const recovery = useSignal<string[] | null>(null);
  const code = useSignal('');
  const error = useSignal('');
  const busy = useSignal(false);

  const run = async (work: () => Promise<void>): Promise<void> => {
    busy.value = true;
    error.value = '';
    try {
      await work();
    } catch (err) {
      if (heldForCheck(retry, err, () => run(work))) return;
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

function Passkeys({ retry }: { retry: Retry }) {
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

  async function add(): Promise<void> {
    error.value = passkeyRefusal(t) ?? '';
    if (error.value) return;
    busy.value = true;
    try {
      const { startRegistration } = await import('@simplewebauthn/browser');
      const optionsJSON = await s.api.passkeyRegistrationOptions();
      const response = await startRegistration({ optionsJSON });
      const added = await s.api.passkeyAdd(response, name.value.trim() || t.passkeyDefaultName);
      list.value = [...(list.value ?? []), added];
      await s.refreshSession();
      s.toasts.show({ text: t.passkeyAdded });
    } catch (err) {
      if (heldForCheck(retry, err, add)) return;
      error.value = err instanceof ApiError ? s.describe(err) : (passkeyRefusal(t, err) ?? t.passkeyAddFailed);
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
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
        noValidate
      >
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

/** What an agent says about themselves: their name, a signature under their replies, whether they take new tickets. */
function OwnProfile() {
  const s = useStore();
  const t = s.t.value;
  const agent = s.me.value!;
  const name = useSignal(agent.name);
  const signature = useSignal(agent.signature);
  const available = useSignal(agent.available);
  const locale = useSignal(agent.locale ?? '');
  const error = useSignal('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const changedLocale = locale.value !== (agent.locale ?? '');
    try {
      s.session.value = await s.api.profile({
        name: name.value,
        signature: signature.value,
        available: available.value,
        locale: isLocale(locale.value) ? locale.value : null,
      });
      error.value = '';
      // A language picked here is the agent's own (mails too): it outranks an earlier pick in this browser's header.
      if (changedLocale) s.prefs.setLocale(null);
      s.toasts.show({ text: t.profileSaved });
    } catch (err) {
      error.value = s.describe(err);
    }
  };
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="own-title">
      <h2 id="own-title">{t.ownProfile}</h2>
      <Field
        id="own-name"
        label={t.displayName}
        value={name.value}
        error={error.value}
        onInput={(e) => (name.value = e.currentTarget.value)}
      />
      <div class="field">
        <label for="own-signature">{t.signature}</label>
        <textarea
          id="own-signature"
          rows={3}
          value={signature.value}
          onInput={(e) => (signature.value = e.currentTarget.value)}
        />
      </div>
      {/* The header's language picker is hidden on a phone: here it is within reach there too. */}
      <div class="field">
        <label for="own-locale">{t.language}</label>
        <select id="own-locale" value={locale.value} onChange={(e) => (locale.value = e.currentTarget.value)}>
          <option value="">{t.languageOfBrowser}</option>
          {Object.entries(LANGUAGE_NAMES).map(([l, n]) => (
            <option value={l}>{n}</option>
          ))}
        </select>
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={available.value}
          onChange={(e) => (available.value = e.currentTarget.checked)}
        />
        {t.available}
      </label>
      <div class="actions">
        <button type="submit" class="btn primary">
          {t.save}
        </button>
      </div>
    </form>
  );
}
