import { secretFor, webhookUses, type AgentView, type ConfigData, type StoredAgent } from '../model/index.js';

// Secrets go in and never come out: every read of the configuration passes through these.

export function agentView(a: StoredAgent): AgentView {
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    role: a.role,
    active: a.active,
    two_factor_enabled: a.two_factor_secret !== null,
    must_change_password: a.must_change_password,
    passkey_count: a.passkeys.length,
    invited: a.account_link?.purpose === 'invite',
    available: a.available,
    created_at: a.created_at,
  };
}

export function smtpView(smtp: ConfigData['mail']['smtp']) {
  const { pass, ...rest } = smtp;
  return { ...rest, pass_set: Boolean(pass) };
}

export function mailView(mail: ConfigData['mail']) {
  const { pass, ...imap } = mail.inbound.imap;
  const { private_key, ...dkim } = mail.dkim;
  return {
    ...mail,
    smtp: smtpView(mail.smtp),
    inbound: { ...mail.inbound, imap: { ...imap, pass_set: Boolean(pass) } },
    dkim: { ...dkim, private_key_set: Boolean(private_key) },
  };
}

export function turnstileView(t: ConfigData['turnstile']) {
  const { secret, ...rest } = t;
  return { ...rest, secret_set: Boolean(secret) };
}

export function identityView(i: ConfigData['identity']) {
  const { secret, ...rest } = i;
  return { ...rest, secret_set: Boolean(secret) };
}

export function modulesView(data: ConfigData) {
  return data.modules.map((m) => {
    if (m.name !== 'webhooks' || !m.settings) return m;
    const { secret: _secret, ...settings } = m.settings;
    return { ...m, settings: { ...settings, secret_set: Boolean(secretFor(data, settings.url)) } };
  });
}

/** Which URLs have a secret, and what uses them; never the secret itself. */
export function webhookSecretsView(data: ConfigData) {
  const uses = webhookUses(data);
  return data.webhook_secrets.map((s) => ({ url: s.url, secret_set: true as const, used_by: uses.get(s.url) ?? [] }));
}
