import type { AuthKey } from '../keys/keys.js';

// What the middleware leaves on ctx.state for the handlers after it.
declare module 'koa' {
  interface DefaultState {
    requestId: string;
    auth: AuthKey;
  }
}

export {};
