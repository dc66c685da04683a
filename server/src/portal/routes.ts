import type { Me, Meta } from '../api-types.js';
import { PRIORITIES } from '../api-types.js';
import type { Deps } from '../deps.js';
import type { Route } from '../http/route.js';

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
      portal: { name: deps.configStore.get().portal.name, public_url: deps.config.publicUrl },
      version: deps.version,
    };
    ctx.body = body;
  });
}
