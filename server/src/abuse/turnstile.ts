import { ApiError } from '../http/errors.js';

export const TURNSTILE_TIMEOUT_MS = 5_000;

const failed = (message: string) => new ApiError(403, 'captcha_failed', message, { param: 'cf-turnstile-response' });

/**
 * Verifies a Turnstile token server-side (siteverify). Fails closed: a missing token, a "no" and a
 * verification that cannot be completed in time all refuse the request.
 */
export async function verifyTurnstile(
  verifyUrl: string,
  secret: string | null | undefined,
  token: unknown,
  remoteIp: string,
) {
  if (typeof token !== 'string' || token === '') throw failed('Please complete the challenge.');
  if (!secret) throw failed('The challenge is not set up on the server (no secret).');
  let ok: boolean;
  try {
    const res = await fetch(verifyUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret, response: token.slice(0, 2048), remoteip: remoteIp }),
      signal: AbortSignal.timeout(TURNSTILE_TIMEOUT_MS),
    });
    ok = res.ok && ((await res.json()) as { success?: unknown }).success === true;
  } catch {
    throw failed('The challenge could not be verified right now. Please try again.');
  }
  if (!ok) throw failed('The challenge was not passed. Please try again.');
}
