import { useSignal, type Signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import { fill, type Strings } from '../i18n/t.js';
import { useStore } from '../state/context.js';
import { Field } from './Field.js';
import { passkeyRefusal } from './passkeyRefusal.js';

type Errors = Partial<Record<'email' | 'password' | 'code' | 'form', string>>;

/** "14 min" or "40 seconds": how long a locked-out agent waits. */
export const waitText = (seconds: number | undefined, t: Strings) =>
  !seconds
    ? fill(t.minutes, { n: 15 })
    : seconds >= 60
      ? fill(t.minutes, { n: Math.ceil(seconds / 60) })
      : fill(t.seconds, { n: seconds });

/** The sign-in page: email and password, then the two-factor code if asked; or a passkey alone. */
export function SignIn() {
  const s = useStore();
  const t = s.t.value;
  const step = useSignal<'password' | 'code'>('password');
  const email = useSignal('');
  const password = useSignal('');
  const code = useSignal('');
  const errors = useSignal<Errors>({});
  const busy = useSignal(false);
  const codeRef = useRef<HTMLInputElement>(null);
  const formError = errors.value.form || s.signInNotice.value;

  useEffect(() => {
    if (step.value === 'code') codeRef.current?.focus();
  }, [step.value]);

  function explain(err: unknown): Errors {
    if (!(err instanceof ApiError)) return { form: t.passkeyFailed };
    switch (err.code) {
      case 'two_factor_required':
        step.value = 'code';
        return {};
      case 'invalid_code':
        return { code: t.invalidCode };
      case 'invalid_credentials':
        return { password: t.invalidCredentials };
      case 'too_many_attempts':
        return { form: fill(t.tooManyAttempts, { wait: waitText(err.retryAfter, t) }) };
      case 'account_disabled':
        return { form: t.accountDisabled };
      case 'validation_failed': {
        const param = err.param as keyof Errors;
        return param === 'email' || param === 'password' || param === 'code'
          ? { [param]: err.message }
          : { form: err.message };
      }
      default:
        return { form: s.describe(err) };
    }
  }

  async function submit(e: Event) {
    e.preventDefault();
    const missing: Errors = {};
    if (!email.value.trim()) missing.email = t.required;
    if (!password.value) missing.password = t.required;
    if (step.value === 'code' && !code.value.trim()) missing.code = t.required;
    errors.value = missing;
    if (Object.keys(missing).length) return;
    busy.value = true;
    try {
      await s.signIn(email.value.trim(), password.value, step.value === 'code' ? code.value.trim() : undefined);
    } catch (err) {
      errors.value = explain(err);
    } finally {
      busy.value = false;
    }
  }

  async function passkey() {
    errors.value = {};
    const refused = passkeyRefusal(t);
    if (refused) return void (errors.value = { form: refused });
    busy.value = true;
    try {
      await s.passkeySignIn();
    } catch (err) {
      errors.value = err instanceof ApiError ? explain(err) : { form: passkeyRefusal(t, err) ?? t.passkeyFailed };
    } finally {
      busy.value = false;
    }
  }

  return (
    <main id="main" class="auth">
      <form class="card" onSubmit={submit} noValidate aria-labelledby="signin-title">
        <p>{t.productName}</p>
        <h1 id="signin-title">{step.value === 'code' ? t.twoFactorTitle : t.signInTitle}</h1>
        {formError && (
          <p class="err banner" role="alert">
            {formError}
          </p>
        )}
        {step.value === 'password' ? (
          <>
            <Field
              id="signin-email"
              label={t.email}
              type="email"
              autocomplete="username"
              value={email.value}
              error={errors.value.email}
              onInput={(e) => (email.value = e.currentTarget.value)}
            />
            <Field
              id="signin-password"
              label={t.password}
              type="password"
              autocomplete="current-password"
              value={password.value}
              error={errors.value.password}
              onInput={(e) => (password.value = e.currentTarget.value)}
            />
          </>
        ) : (
          <Field
            inputRef={codeRef}
            id="signin-code"
            label={t.code}
            hint={t.twoFactorHint}
            autocomplete="one-time-code"
            inputMode="text"
            spellcheck={false}
            value={code.value}
            error={errors.value.code}
            onInput={(e) => (code.value = e.currentTarget.value)}
          />
        )}
        <div class="actions">
          {step.value === 'code' && (
            <button
              type="button"
              class="btn ghost"
              onClick={() => {
                step.value = 'password';
                code.value = '';
                errors.value = {};
              }}
            >
              {t.back}
            </button>
          )}
          <button type="submit" class="btn primary" disabled={busy.value}>
            {busy.value ? t.signingIn : step.value === 'code' ? t.verify : t.signIn}
          </button>
        </div>
        {step.value === 'password' && (
          <div class="alt">
            <span>{t.orPasskey}</span>
            <button type="button" class="btn" disabled={busy.value} onClick={passkey}>
              {t.signInPasskey}
            </button>
            <a href="/console/forgot">{t.forgotPassword}</a>
          </div>
        )}
      </form>
    </main>
  );
}

/** The first sign-in with a one-time password: a new password before anything else. */
export function PasswordChange() {
  const s = useStore();
  const t = s.t.value;
  return (
    <main id="main" class="auth">
      <div class="card">
        <h1>{t.changePasswordTitle}</h1>
        <p>{t.changePasswordHint}</p>
        <PasswordForm idPrefix="forced" initialCurrent={s.oneTimePassword.value} />
        <div class="actions">
          <button type="button" class="btn ghost" onClick={() => void s.signOut()}>
            {t.signOut}
          </button>
        </div>
      </div>
    </main>
  );
}

/** What is wrong with a new password and its repetition, wherever one is chosen. */
export function newPasswordErrors(next: string, repeat: string, t: Strings): { next?: string; repeat?: string } {
  const found: { next?: string; repeat?: string } = {};
  if (next.length < 10) found.next = t.passwordTooShort;
  if (repeat !== next) found.repeat = t.passwordsDiffer;
  return found;
}

/** The new password and its repetition, errors next to their field (profile, invitation, reset link). */
export function NewPasswordFields(props: {
  idPrefix: string;
  next: Signal<string>;
  repeat: Signal<string>;
  errors: { next?: string; repeat?: string };
}) {
  const t = useStore().t.value;
  const { idPrefix, next, repeat, errors } = props;
  return (
    <>
      <Field
        id={`${idPrefix}-new`}
        label={t.newPassword}
        type="password"
        autocomplete="new-password"
        hint={t.passwordHint}
        value={next.value}
        error={errors.next}
        onInput={(e) => (next.value = e.currentTarget.value)}
      />
      <Field
        id={`${idPrefix}-repeat`}
        label={t.repeatPassword}
        type="password"
        autocomplete="new-password"
        value={repeat.value}
        error={errors.repeat}
        onInput={(e) => (repeat.value = e.currentTarget.value)}
      />
    </>
  );
}

/** Current, new and repeated password; errors next to their field. Used by the profile too. */
export function PasswordForm({ idPrefix, initialCurrent = '' }: { idPrefix: string; initialCurrent?: string }) {
  const s = useStore();
  const t = s.t.value;
  const current = useSignal(initialCurrent);
  const next = useSignal('');
  const repeat = useSignal('');
  const errors = useSignal<Partial<Record<'current' | 'next' | 'repeat' | 'form', string>>>({});
  const busy = useSignal(false);

  async function submit(e: Event) {
    e.preventDefault();
    const found: typeof errors.value = {};
    if (!current.value) found.current = t.required;
    Object.assign(found, newPasswordErrors(next.value, repeat.value, t));
    errors.value = found;
    if (Object.keys(found).length) return;
    busy.value = true;
    try {
      await s.changePassword(current.value, next.value);
      s.oneTimePassword.value = '';
      current.value = next.value = repeat.value = '';
      s.toasts.show({ text: t.passwordChanged });
    } catch (err) {
      if (err instanceof ApiError && err.param === 'new_password') errors.value = { next: err.message };
      else if (err instanceof ApiError && (err.param === 'current_password' || err.code === 'invalid_credentials'))
        errors.value = { current: t.wrongPassword };
      else if (err instanceof ApiError && err.code === 'too_many_attempts')
        errors.value = { form: fill(t.tooManyAttempts, { wait: waitText(err.retryAfter, t) }) };
      else errors.value = { form: s.describe(err) };
    } finally {
      busy.value = false;
    }
  }

  return (
    <form onSubmit={submit} noValidate class="stack">
      {errors.value.form && (
        <p class="err banner" role="alert">
          {errors.value.form}
        </p>
      )}
      <Field
        id={`${idPrefix}-current`}
        label={t.currentPassword}
        type="password"
        autocomplete="current-password"
        value={current.value}
        error={errors.value.current}
        onInput={(e) => (current.value = e.currentTarget.value)}
      />
      <NewPasswordFields idPrefix={idPrefix} next={next} repeat={repeat} errors={errors.value} />
      <div class="actions">
        <button type="submit" class="btn primary" disabled={busy.value}>
          {t.changePassword}
        </button>
      </div>
    </form>
  );
}
