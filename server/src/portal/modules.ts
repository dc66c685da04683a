import type { Context } from 'koa';
import { moduleEnabled, type ConfigData, type ModuleName } from '../model/index.js';
import { ApiError } from '../http/errors.js';

/** Customer-facing features switched off answer 403 module_disabled to public keys; support keeps them. */
export function requireModule(ctx: Context, config: ConfigData, name: ModuleName, what: string, param?: string) {
  if (ctx.state.auth.kind === 'public' && !moduleEnabled(config.modules, name)) {
    throw new ApiError(403, 'module_disabled', `${what} is switched off.`, param ? { param } : {});
  }
}
