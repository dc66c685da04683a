import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { sha256 } from '../keys/keys.js';
import { randomToken, type StoredAgent } from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';

// TOTP as RFC 6238 and every authenticator app have it: SHA-1, 6 digits, 30 seconds. One step either
// side is accepted for clocks a little apart.
const PERIOD = 30;
const totp = (secret: string, label = '') =>
  new TOTP({
    issuer: 'Ticketing',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });

/** A new secret (160 bits, base32), its otpauth:// URL and that URL as an SVG QR code. */
export async function newEnrolment(email: string) {
  const secret = new Secret({ size: 20 }).base32;
  const otpauth_url = totp(secret, email).toString();
  const qr_svg = await QRCode.toString(otpauth_url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return { secret, otpauth_url, qr_svg };
}

/** The time step a 6-digit `code` is good for under `secret` at `now` (ms), or undefined. */
export function totpStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD) + delta;
}

// Recovery codes: 10 letters and digits, shown as xxxxx-xxxxx; any case, dashes and spaces are ignored.
const normalise = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();
const recoveryHash = (code: string) => sha256(`recovery|${normalise(code)}`);

/** Ten new recovery codes, and what is stored of them. */
export function newRecoveryCodes() {
  const codes = Array.from({ length: 10 }, () =>
    randomToken(10)
      .toLowerCase()
      .replace(/^(.{5})/, '$1-'),
  );
  return { codes, hashes: codes.map(recoveryHash) };
}

/**
 * Checks a second factor of an agent with two-factor on: a TOTP code not used before (a later step
 * than the last one used), or an unused recovery code (used up now). True when it holds. The check
 * that counts runs inside the configuration's write, so two sign-ins with one code cannot both pass.
 */
export async function useSecondFactor(
  configStore: ConfigStore,
  agent: StoredAgent,
  code: string,
  now: number,
): Promise<boolean> {
  const secret = agent.two_factor_secret;
  if (!secret) return false;
  const step = totpStep(secret, code.trim(), now);
  const hash = recoveryHash(code);
  if (step === undefined && !agent.recovery_codes.includes(hash)) return false;
  let ok = false;
  await configStore.update((d) => {
    const a = d.agents.find((x) => x.id === agent.id);
    if (!a || a.two_factor_secret !== secret) return;
    if (step !== undefined) {
      if (step > a.totp_last_step) [a.totp_last_step, ok] = [step, true];
    } else if (a.recovery_codes.includes(hash)) {
      a.recovery_codes = a.recovery_codes.filter((h) => h !== hash);
      ok = true;
    }
  });
  return ok;
}
