/** Who may call an endpoint: a public key, any secret key, or a live secret key only. */
export type Access = 'pk' | 'sk' | 'sk_live';

/**
 * Every endpoint of the spec, with the access of the spec's table. Legacy `.php` redirects and CORS
 * read this table, so an endpoint is named once.
 */
export const ENDPOINTS: Record<string, Access> = {
  create: 'pk',
  list: 'sk',
  ticket: 'pk',
  reply: 'pk',
  status: 'sk',
  priority: 'sk',
  assign: 'sk',
  delete: 'sk',
  meta: 'pk',
  kb: 'pk',
  'close-request': 'pk',
  'close-resolve': 'sk',
  upload: 'pk',
  file: 'pk',
  rate: 'pk',
  settings: 'sk',
  me: 'pk',
  'widget-config': 'pk',
  admin: 'sk_live',
  'openapi.json': 'pk',
};

export const API_PREFIX = '/v1';

/** The endpoint name of a `/v1/<name>` path, or undefined. */
export function endpointOf(path: string): string | undefined {
  if (!path.startsWith(`${API_PREFIX}/`)) return undefined;
  const name = path.slice(API_PREFIX.length + 1);
  return Object.hasOwn(ENDPOINTS, name) ? name : undefined;
}
