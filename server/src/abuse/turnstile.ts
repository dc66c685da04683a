import { ApiError } from '../http/errors.js';

/** How long a verification may take before the request is refused (fail closed). */
const TURNSTILE_TIMEOUT_MS = 5_000;

const failed = (message: string) => new ApiError(403, 'captcha_failed', message, { param: 'cf-turnstile-response' });

/** Verifies a token for the configured secret; throws 403 captcha_failed when it does not hold. */
export type TurnstileVerifier = (secret: string | null | undefined, token: unknown, remoteIp: string) => Promise<void>;

/**
 * Verifies Turnstile tokens server-side (siteverify) through `fetch` (the global one in production;
 * tests hand in a stand-in that answers as Cloudflare would, or never). Fails closed: a missing token,
 * a "no" and a verification that cannot be completed within `timeoutMs` all refuse the request.
 */
export function turnstileVerifier(options: {
  verifyUrl: string;
  fetch: typeof globalThis.fetch;
  timeoutMs?: number;
}): TurnstileVerifier {
  const timeoutMs = options.timeoutMs ?? TURNSTILE_TIMEOUT_MS;
  return async (secret, token, remoteIp) => {
    if (typeof token !== 'string' || token === '') throw failed('Please complete the challenge.');
    if (!secret) throw failed('The challenge is not set up on the server (no secret).');
    let ok: boolean;
    try {
      const res = await options.fetch(options.verifyUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret, response: token.slice(0, 2048), remoteip: remoteIp }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      ok = res.ok && ((await res.json()) as { success?: unknown }).success === true;
    } catch {
      throw failed('The challenge could not be verified right now. Please try again.');
    }
    if (!ok) throw failed('The challenge was not passed. Please try again.');
  };
}
