import { z } from 'zod';
import { routeFor, type RouteDef } from '../http/route.js';
import { openApiDocument } from './document.js';

/** What the document needs from the app: the version and where the API is reached. */
export interface OpenApiDeps {
  version: string;
  publicUrl: () => string;
}

const route = routeFor<OpenApiDeps>();

/**
 * GET /v1/openapi.json, describing `routes` and itself. Open: the document holds no secret, and API
 * browsers and client generators fetch it without a key. Built once: the routes do not change while
 * the server runs.
 */
export function openApiRoutes(routes: readonly RouteDef<never>[]) {
  // Per address: one process may run several servers (the tests do), each serving its own `servers`.
  const texts = new Map<string, string>();
  const self: RouteDef<OpenApiDeps> = route({
    method: 'get',
    path: '/openapi.json',
    access: 'open',
    summary: 'This document: OpenAPI 3.1, generated from the route table',
    responses: {
      200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()).describe('OpenAPI 3.1') },
    },
    async handler(_req, deps) {
      const serverUrl = `${deps.publicUrl()}/v1`;
      let text = texts.get(serverUrl);
      if (text === undefined)
        texts.set(
          serverUrl,
          (text = JSON.stringify(openApiDocument([...routes, self], { version: deps.version, serverUrl }))),
        );
      return { raw: { data: text, type: 'application/json; charset=utf-8' } };
    },
  });
  return [self];
}
