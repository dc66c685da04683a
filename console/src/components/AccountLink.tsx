import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../api/client.js';
import { useStore } from '../state/context.js';
import { Field } from './Field.js';
import { NewPasswordFields, newPasswordErrors } from './SignIn.js';

/** "Forgot password?": the email, then the same answer whoever it belongs to (as the server's). */
export function ForgotPassword() {
  const s = useStore();
  const t = s.t.value;
  const email = useSignal('');
  const sent = useSignal(false);
  const error = useSignal('');

  async function submit(e: Event) {
    e.preventDefault();
    if (!email.value.trim()) return void (error.value = t.required);
    try {
      await s.api.forgot(email.value.trim());
      sent.value = true;
    } catch (err) {
      error.value = s.describe(err);
    }
  }

  return (
    <main id="main" class="auth">
      <form class="card" onSubmit={submit} noValidate aria-labelledby="forgot-title">
        <p>{t.productName}</p>
        <h1 id="forgot-title">{t.resetTitle}</h1>
        {sent.value ? (
          <p role="status">{t.forgotSent}</p>
        ) : (
          <>
            <p>{t.forgotHint}</p>
            <Field
              id="forgot-email"
              label={t.email}
              type="email"
              autocomplete="username"
              value={email.value}
              error={error.value}
              onInput={(e) => (email.value = e.currentTarget.value)}
            />
          </>
        )}
        <div class="actions">
          <a class="btn ghost" href="/console/sign-in">
            {t.back}
          </a>
          {!sent.value && (
            <button type="submit" class="btn primary">
              {t.sendLink}
            </button>
          )}
        </div>
      </form>
    </main>
  );
}

/**
 * The page a mailed link opens (/console/invite/<token>, /console/reset/<token>): a new password, then
 * signed in, on to the inbox (always the console's own start, never an address from the link).
 */
export function AccountLinkPage({ purpose, token }: { purpose: 'invite' | 'reset'; token: string }) {
  const s = useStore();
  const t = s.t.value;
  const { route } = useLocation();
  const next = useSignal('');
  const repeat = useSignal('');
  const errors = useSignal<Partial<Record<'next' | 'repeat' | 'form', string>>>({});

  async function submit(e: Event) {
    e.preventDefault();
    const found: typeof errors.value = {};
    Object.assign(found, newPasswordErrors(next.value, repeat.value, t));
    errors.value = found;
    if (Object.keys(found).length) return;
    try {
      await s.useLink(purpose, token, next.value);
      route('/console/', true);
    } catch (err) {
      errors.value = { form: err instanceof ApiError && err.code === 'link_invalid' ? t.linkInvalid : s.describe(err) };
    }
  }

  return (
    <main id="main" class="auth">
      <form class="card" onSubmit={submit} noValidate aria-labelledby="link-title">
        <p>{t.productName}</p>
        <h1 id="link-title">{purpose === 'invite' ? t.inviteTitle : t.resetTitle}</h1>
        {errors.value.form && (
          <p class="err banner" role="alert">
            {errors.value.form} {purpose === 'reset' && <a href="/console/forgot">{t.forgotPassword}</a>}
          </p>
        )}
        <NewPasswordFields idPrefix="link" next={next} repeat={repeat} errors={errors.value} />
        <div class="actions">
          <button type="submit" class="btn primary">
            {t.signIn}
          </button>
        </div>
      </form>
    </main>
  );
}
