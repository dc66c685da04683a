import type { RequestActor } from '../model/index.js';

// What the middleware leaves on ctx.state for the handlers after it.
declare module 'koa' {
  interface DefaultState {
    requestId: string;
    /** Who is calling; set by the route's checks (http/mount.ts), absent on open routes. */
    actor?: RequestActor;
    /** Set while a long-lived answer checks its credential again (RouteRequest.credentialHolds): no use to record. */
    rechecking?: boolean;
  }
}

export {};
