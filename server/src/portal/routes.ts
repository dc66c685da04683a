import type { Me, Meta } from '../model/index.js';
import { CUSTOMER_MODULES, moduleEnabled, PRIORITIES } from '../model/index.js';
import type { Deps } from '../deps.js';
import type { Route } from '../http/route.js';
import { openApiDocument } from '../openapi/document.js';
import { openState } from './business-hours.js';

export function portalRoutes(route: Route, deps: Deps) {
  route('get', 'meta', async (ctx) => {
    const { categories, statuses } = deps.configStore.get();
    const body: Meta = { categories, statuses, priorities: [...PRIORITIES] };
    ctx.body = body;
  });

  route('get', 'me', async (ctx) => {
    const { auth } = ctx.state;
    const body: Me = {
      key: {
        kind: auth.kind,
        mode: auth.mode,
        admin: auth.kind === 'secret' && auth.mode === 'live',
        prefix: auth.prefix,
      },
      portal: { name: deps.configStore.get().portal.name, public_url: deps.publicUrl() },
      version: deps.version,
    };
    ctx.body = body;
  });

  /** What the widget needs to draw itself. Never a secret. */
  route('get', 'widget-config', async (ctx) => {
    const { auth } = ctx.state;
    const data = deps.configStore.get();
    const publicKey =
      auth.kind === 'public'
        ? ctx
            .get('Authorization')
            .replace(/^Bearer +/i, '')
            .trim()
        : (data.keys.find((k) => k.kind === 'public' && k.mode === auth.mode && !k.revoked_at)?.key ?? null);
    ctx.body = {
      design: data.design,
      form: data.form,
      modules: Object.fromEntries(CUSTOMER_MODULES.map((name) => [name, moduleEnabled(data.modules, name)])),
      categories: data.categories,
      turnstile: { enabled: data.turnstile.enabled, site_key: data.turnstile.site_key },
      business_hours: { ...openState(data.business_hours, deps.clock()), timezone: data.business_hours.timezone },
      public_key: publicKey,
      api_version: 'v1',
    };
  });

  // Built once: the schemas do not change while the server runs.
  let openapi: string | undefined;
  route('get', 'openapi.json', async (ctx) => {
    openapi ??= JSON.stringify(openApiDocument(deps.version, `${deps.publicUrl()}/v1`));
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = openapi;
  });
}
