import { openState } from '../hours/business-hours.js';
import { routeFor } from '../http/route.js';
import { mailConfigured } from '../mail/mailer.js';
import {
  CUSTOMER_MODULES,
  MeSchema,
  MetaSchema,
  moduleEnabled,
  PRIORITIES,
  WidgetConfigSchema,
  type RequestActor,
} from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { KeyStore } from '../store/key-store.js';

/** What the portal routes need from the app. */
export interface PortalDeps {
  configStore: ConfigStore;
  clock: () => Date;
  /** Where links in mail point: TICKETING_PUBLIC_URL, else the address the server is bound to. */
  publicUrl: () => string;
  version: string;
  /** The widget's public key of the mode, for a secret key's view of the widget configuration. */
  keys: KeyStore;
}

const route = routeFor<PortalDeps>();

const meta = route({
  method: 'get',
  path: '/meta',
  access: 'customer',
  summary: 'Categories with their custom fields, statuses and priorities',
  responses: { 200: { description: 'What a form needs to offer', schema: MetaSchema } },
  async handler(_req, deps) {
    const { categories, statuses } = deps.configStore.get();
    return { body: { categories, statuses, priorities: [...PRIORITIES] } };
  },
});

/** The key an actor called with, as /me describes it; null for an agent's session. */
const keyOf = (actor: RequestActor) =>
  actor.kind === 'agent'
    ? null
    : {
        kind: actor.kind === 'customer' ? ('public' as const) : ('secret' as const),
        mode: actor.mode,
        admin: actor.kind === 'key' && actor.admin,
        prefix: actor.key.prefix,
      };

const me = route({
  method: 'get',
  path: '/me',
  access: 'customer',
  summary: 'What the calling key is, and where the portal lives',
  responses: { 200: { description: 'The key, the portal and the server version', schema: MeSchema } },
  async handler({ actor }, deps) {
    return {
      body: {
        key: keyOf(actor),
        portal: { name: deps.configStore.get().portal.name, public_url: deps.publicUrl() },
        version: deps.version,
      },
    };
  },
});

const widgetConfig = route({
  method: 'get',
  path: '/widget-config',
  access: 'customer',
  summary: 'What the widget needs to draw itself: design, form, modules, categories, opening hours',
  description: 'Never a secret.',
  responses: { 200: { description: 'The widget’s configuration', schema: WidgetConfigSchema } },
  async handler({ actor }, deps) {
    const data = deps.configStore.get();
    const publicKey =
      actor.kind === 'customer'
        ? actor.key.public
        : ((await deps.keys.list()).find((k) => k.kind === 'public' && k.mode === actor.mode && !k.revoked_at)?.key ??
          null);
    return {
      body: {
        design: data.design,
        form: data.form,
        modules: Object.fromEntries(
          CUSTOMER_MODULES.map((name) => [name, moduleEnabled(data.modules, name)]),
        ) as Record<(typeof CUSTOMER_MODULES)[number], boolean>,
        categories: data.categories,
        turnstile: { enabled: data.turnstile.enabled, site_key: data.turnstile.site_key },
        business_hours: { ...openState(data.business_hours, deps.clock()), timezone: data.business_hours.timezone },
        public_key: publicKey,
        // Whether to tell a customer "we will answer by email": a yes or no, never the settings behind it.
        mail: mailConfigured(data.mail) && data.mail.email_notify.customer_on_reply,
        api_version: 'v1' as const,
      },
    };
  },
});

export const portalRoutes = [meta, me, widgetConfig];
