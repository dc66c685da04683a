import { COULD_NOT_CONNECT, timedOut } from '../model/index.js';

/** nodemailer's error codes whose message is the SMTP server's own answer (or our own words), safe to show. */
const SERVER_SAID = new Set(['EAUTH', 'EENVELOPE', 'EMESSAGE', 'ETLS', 'EQUIRETLS']);

/**
 * What "send a test mail" tells the admin when the mail did not go: the SMTP server's own refusal
 * (a bad password, a refused sender), else a few fixed words that say what to check, in the words
 * webhooks use (model/connection-failure.ts), never the address, the port, an errno or what some
 * other service on that port printed: a test mail must not be a port scanner. `response` is the
 * server's reply to pass on, kept only when the server's answer is what failed.
 */
export function smtpFailure(err: unknown, timeoutSeconds: number): { error: string; response: string | null } {
  const e = (err ?? {}) as { code?: string; message?: string; response?: string };
  const message = e.message ?? String(err);
  if (e.code && SERVER_SAID.has(e.code))
    return { error: message.split('\n')[0]!.slice(0, 500), response: e.response?.slice(0, 500) ?? null };
  if (/certificate/i.test(message))
    return {
      error:
        'the SMTP server’s TLS certificate does not verify: fix the certificate, or set ' +
        'allow_invalid_certificate for an internal relay you trust',
      response: null,
    };
  // The test mail's own time limit (mailer.ts): our words.
  if (message.startsWith('the SMTP server did not finish within')) return { error: message, response: null };
  if (e.code === 'ETIMEDOUT')
    return {
      error: `${timedOut(timeoutSeconds)}: the SMTP server did not answer; check smtp.host, smtp.port and smtp.secure (true for port 465)`,
      response: null,
    };
  if (e.code === 'EPROTOCOL')
    return {
      error: 'the server at smtp.host and smtp.port did not answer as an SMTP server: check smtp.port and smtp.secure',
      response: null,
    };
  return {
    error: `${COULD_NOT_CONNECT} to the SMTP server: check smtp.host and smtp.port, and that it accepts connections from this server`,
    response: null,
  };
}
