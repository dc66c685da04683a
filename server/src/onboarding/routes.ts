import { z } from 'zod';
import type { Logger } from 'pino';
import { auditEntry } from '../audit/audit.js';
import { ApiError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { mailConfigured } from '../mail/mailer.js';
import {
  AccountLinkInputSchema,
  ForgotInputSchema,
  SessionSchema,
  SYSTEM,
  type AccountLink,
  type RequestActor,
} from '../model/index.js';
import type { Outbox } from '../outbox/outbox.js';
import { checkOrigin } from '../sessions/session-cookie.js';
import type { SessionRouteDeps } from '../sessions/session-agent.js';
import { countAttempt, startSession } from '../sessions/sign-in.js';
import { useSecondFactor } from '../sessions/totp.js';
import { hashPassword } from '../settings/passwords.js';
import { outsideUnit } from '../store/unit-of-work.js';
import { accountMail } from './account-mail.js';
import { accountLinkUrl, agentOfLink, newAccountLink, useAccountLink } from './account-links.js';

/** What the invitation and reset routes need from the app. */
export interface OnboardingDeps extends SessionRouteDeps {
  outbox: Pick<Outbox, 'enqueue'>;
  publicUrl: () => string;
  logger: Logger;
}

const route = routeFor<OnboardingDeps>();

const HOUR = 3_600_000;
/** Reset mails asked for per email and per client address an hour, at most: nobody's mailbox is flooded. */
const FORGOT_LIMITS = { perEmail: 3, perAddress: 20 };

/**
 * Mails an agent a single-use link (an invitation, a reset): the token is stored as its hash on the
 * agent, replacing any earlier link, and the mail goes through the outbox.
 */
export async function mailAccountLink(
  deps: Pick<OnboardingDeps, 'configStore' | 'outbox' | 'publicUrl' | 'clock'>,
  agentId: string,
  purpose: AccountLink['purpose'],
) {
  const { token, link } = newAccountLink(purpose, deps.clock().getTime());
  const data = await deps.configStore.update((d) => {
    for (const a of d.agents) if (a.id === agentId) a.account_link = link;
  });
  const agent = data.agents.find((a) => a.id === agentId)!;
  const href = accountLinkUrl(deps.publicUrl(), purpose, token);
  await deps.outbox.enqueue('mail', accountMail(purpose, agent, data.portal.name, href), 'live');
  return agent;
}

/** What POST /session/forgot does after answering: the limits, then a link for an active agent. */
async function mailResetLink(deps: OnboardingDeps, email: string, ip: string) {
  if (await deps.rateLimiter.hit(`forgot-ip|${ip}`, FORGOT_LIMITS.perAddress, HOUR)) return;
  if (await deps.rateLimiter.hit(`forgot-email|${email}`, FORGOT_LIMITS.perEmail, HOUR)) return;
  const config = deps.configStore.get();
  const agent = config.agents.find((a) => a.active && a.email.toLowerCase() === email);
  if (!agent || !mailConfigured(config.mail)) return;
  await mailAccountLink(deps, agent.id, 'reset');
  await deps.audit.append(auditEntry(deps.clock(), SYSTEM, 'agent.reset_link_sent', agent.id, { ip }));
}

const forgot = route({
  method: 'post',
  path: '/session/forgot',
  access: 'open',
  summary: 'Ask for a password reset link by mail',
  description:
    'Always answers 202, whether or not the email is an agent’s, at once: the mail is made after the ' +
    'answer. Only an active agent gets one, with a single-use link to `/console/reset/<token>` that holds ' +
    `one hour; a newer link replaces an older one. At most ${FORGOT_LIMITS.perEmail} mails per email and ` +
    `${FORGOT_LIMITS.perAddress} requests per client address an hour are acted on. Needs working mail ` +
    '(`/admin r=mail`); without it, an admin gives a one-time password instead.',
  body: { schema: ForgotInputSchema, encodings: ['json', 'form'] },
  responses: {
    202: {
      description: 'Taken: a mail follows if the email is an active agent’s',
      schema: z.object({ accepted: z.literal(true) }),
    },
  },
  errors: { 403: ['csrf_failed'] },
  async handler({ body, ip, ctx }, deps) {
    checkOrigin(ctx, deps.config);
    const email = body.email.toLowerCase();
    // Counted and acted on once the answer is sent, the same way for every email: neither what is
    // answered nor when tells whether an agent has this address.
    ctx.res.once('finish', () =>
      outsideUnit(() => {
        mailResetLink(deps, email, ip).catch((err: unknown) =>
          deps.logger.error({ err }, 'could not mail a password reset link'),
        );
      }),
    );
    return { status: 202, body: { accepted: true as const } };
  },
});

/** An invitation's or a reset's second half: the link's token and a password, then a new session. */
function useLinkRoute(purpose: AccountLink['purpose']) {
  return route({
    method: 'post',
    path: `/session/${purpose}`,
    access: 'open',
    summary:
      purpose === 'invite'
        ? 'Accept an invitation: choose a password and sign in'
        : 'Reset a forgotten password with the mailed link, and sign in',
    description:
      (purpose === 'invite'
        ? 'The token of the invitation link (`/console/invite/<token>`, 7 days). '
        : 'The token of the reset link (`/console/reset/<token>`, one hour). Every session of the agent ends ' +
          'and so do their passkeys. ') +
      'The link works once: used, expired or replaced by a newer one it is 403 link_invalid. With two-factor ' +
      'on, `code` is needed too (401 two_factor_required without it, invalid_code when wrong; the link ' +
      'stays good). Answers as sign-in does, with a new session id.',
    body: { schema: AccountLinkInputSchema, encodings: ['json', 'form'] },
    responses: { 200: { description: 'Signed in', schema: SessionSchema, headers: ['Set-Cookie'] as const } },
    errors: {
      401: ['two_factor_required', 'invalid_code'],
      403: ['csrf_failed', 'link_invalid'],
      429: ['too_many_attempts'],
    },
    async handler({ body, ip, ctx }, deps) {
      checkOrigin(ctx, deps.config);
      const now = deps.clock().getTime();
      const agent = agentOfLink(deps.configStore, purpose, body.token, now);
      if (agent.two_factor_secret) {
        if (!body.code)
          throw new ApiError(401, 'two_factor_required', 'Send the code from your authenticator app as `code`.', {
            param: 'code',
          });
        const attempt = await countAttempt(deps, agent.email, ip);
        if (!(await useSecondFactor(deps.configStore, agent, body.code, now)))
          throw new ApiError(401, 'invalid_code', 'This code is wrong, or was used already.', { param: 'code' });
        await attempt.forgive();
      }
      const used = await useAccountLink(deps.configStore, purpose, body.token, await hashPassword(body.password), now);
      // Every session of the agent ends (the password they began with is gone); startSession ends the
      // one the browser brought, whoever's.
      await deps.sessions.removeAgent(used.id);
      const view = await startSession(ctx, deps, used);
      const actor: RequestActor = {
        kind: 'agent',
        mode: 'live',
        agent: { id: used.id, name: used.name, role: used.role },
        session: '',
        verified_at: now,
      };
      await deps.audit.append(
        auditEntry(
          deps.clock(),
          actor,
          purpose === 'invite' ? 'agent.invite_accepted' : 'agent.password_reset',
          used.id,
          {
            ip,
            via: 'mail',
          },
        ),
      );
      return { body: view };
    },
  });
}

/** Invitations and forgotten passwords by mail. */
export const onboardingRoutes = [forgot, useLinkRoute('invite'), useLinkRoute('reset')];
