import type { Context } from 'koa';
import type { ConfigData } from '../admin/schema.js';
import { ApiError } from '../http/errors.js';

/** A module missing from the list counts as off (API.md, modules). */
export const moduleEnabled = (config: ConfigData, name: string) =>
  config.modules.some((m) => m.name === name && m.enabled);

/** Customer-facing features switched off answer 403 module_disabled to public keys; support keeps them. */
export function requireModule(ctx: Context, config: ConfigData, name: string, what: string, param?: string) {
  if (ctx.state.auth.kind === 'public' && !moduleEnabled(config, name)) {
    throw new ApiError(403, 'module_disabled', `${what} is switched off.`, param ? { param } : {});
  }
}
