import { z } from 'zod';
import { ErrorBodySchema } from '../model/index.js';
import { API_PREFIX, type Encoding, type RouteDef } from '../http/route.js';

type Json = Record<string, unknown>;

const MEDIA: Record<Encoding, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
};

const COMPONENT = '#/components/schemas/';
const SHARED = `${COMPONENT}__shared#/$defs/`;
const ref = (name: string) => ({ $ref: `${COMPONENT}${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Response headers, documented once. */
const HEADERS: Record<string, { description: string; schema: Json }> = {
  'X-Request-Id': {
    description: 'The request’s id, as in the server’s log (a well-formed one sent is kept)',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  ETag: { description: 'The answer’s entity tag, for If-None-Match', schema: { type: 'string' } },
  'Cache-Control': { description: 'private: answers hold a customer’s data', schema: { type: 'string' } },
  'Content-Disposition': {
    description: 'Always attachment, with a safe ASCII filename and the exact name as filename* (RFC 6266)',
    schema: { type: 'string' },
  },
  'Content-Security-Policy': {
    description: 'sandbox: a download never runs in this origin',
    schema: { type: 'string' },
  },
  Allow: { description: 'The methods this resource takes', schema: { type: 'string' } },
  'Set-Cookie': {
    description: 'The session cookie: HttpOnly, SameSite=Strict, Path=/, Secure with https',
    schema: { type: 'string' },
  },
  Location: { description: 'The endpoint’s path without .php, with the query string kept', schema: { type: 'string' } },
  'Access-Control-Allow-Origin': { description: 'The Origin sent, echoed', schema: { type: 'string' } },
  'Access-Control-Allow-Methods': { description: 'GET, POST, DELETE, OPTIONS', schema: { type: 'string' } },
  'Access-Control-Allow-Headers': {
    description: 'Authorization, Content-Type, If-None-Match, Idempotency-Key, X-Ticketing-Identity',
    schema: { type: 'string' },
  },
  'Access-Control-Max-Age': { description: 'Seconds a browser may keep this answer', schema: { type: 'integer' } },
};

const REQUEST_HEADERS: Record<string, Json> = {
  'Accept-Language': {
    name: 'Accept-Language',
    in: 'header',
    required: false,
    description:
      'With a public key: error messages in en, de, fr, es or ar; on /create, the language of the customer’s mails.',
    schema: { type: 'string' },
  },
  'X-Ticketing-Identity': {
    name: 'X-Ticketing-Identity',
    in: 'header',
    required: false,
    description:
      'A customer the site vouches for: `<hex HMAC-SHA256(identity secret, email)>.<email, percent-encoded>`. ' +
      'Unsigned, badly signed or malformed (of any length): the customer is anonymous, never an error.',
    schema: { type: 'string' },
  },
  'Last-Event-ID': {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description:
      'The `id:` of the last event received: the stream resumes after it (a `reset` event when it is no longer kept).',
    schema: { type: 'string' },
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key, key holder and body within 24 hours answers the first answer again; ' +
      'another body with the same key is 409 idempotency_key_reused.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An ETag from an earlier answer (or a list, or *): unchanged, the answer is 304 without a body.',
    schema: { type: 'string' },
  },
};

/** Error codes every route of a kind can answer, by status; a route adds its own (RouteDef.errors). */
function errorCodes(route: RouteDef<never>): Record<number, string[]> {
  const codes: Record<number, string[]> = {};
  const add = (status: number, ...list: readonly string[]) => (codes[status] = [...(codes[status] ?? []), ...list]);
  if (route.query || route.body) add(400, 'validation_failed');
  if (route.body?.encodings.includes('json')) add(400, 'invalid_json');
  if (route.access !== 'open') {
    add(401, 'missing_api_key', 'invalid_api_key', 'not_signed_in');
    // The session cookie (sessions/): its CSRF check, and an agent with a one-time password.
    add(403, 'csrf_failed', 'password_change_required');
    if (route.access === 'customer') add(403, 'origin_not_allowed');
    if (route.access === 'staff') add(403, 'secret_key_required');
    if (route.access === 'admin') add(403, 'live_secret_key_required', 'admin_required');
    if (route.module) add(403, 'module_disabled');
    if (route.requestHeaders?.includes('X-Ticketing-Identity')) add(403, 'identity_required');
    add(429, 'rate_limited');
  }
  if (route.body) {
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  for (const [status, list] of Object.entries(route.errors ?? {})) add(Number(status), ...list);
  // Refused by Node's HTTP parser before any route (http/client-error.ts): on every operation alike.
  add(400, 'bad_request');
  add(408, 'request_timeout');
  add(431, 'headers_too_large');
  add(500, 'internal_error');
  add(503, 'unavailable');
  for (const status of Object.keys(codes)) codes[Number(status)] = [...new Set(codes[Number(status)])];
  return codes;
}

const ERROR_HEADERS: Record<number, string[]> = { 405: ['Allow'], 429: ['Retry-After'], 503: ['Retry-After'] };
const STATUS_TEXT: Record<number, string> = {
  400: 'The request is malformed',
  401: 'No valid credential',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Not allowed on this resource',
  408: 'The request did not arrive in time',
  409: 'Conflicts with the current state',
  413: 'Too large',
  415: 'Not a media type or file type this endpoint takes',
  429: 'Too many requests',
  431: 'The request headers are too large',
  500: 'Something went wrong on the server',
  503: 'The data directory cannot take writes right now',
};

/**
 * A property as the server reads it: where an empty value (and, in a JSON body, null) counts as not
 * given (coerce.ts `optional`, as browsers send empty form fields), the document says so rather than
 * letting the value's own rule refuse it.
 */
function withEmpty(property: Json, schema: z.ZodType, name: string, required: string[], body: boolean): Json {
  if (required.includes(name) || !emptyIsAbsent(schema, name) || takesEmpty(property)) return property;
  const { description, ...rest } = property;
  const alternatives = Object.keys(rest).length === 1 && Array.isArray(rest.anyOf) ? (rest.anyOf as Json[]) : [rest];
  return {
    description: [description, 'empty: as if not given'].filter(Boolean).join('; '),
    anyOf: [...alternatives, { type: 'string', maxLength: 0 }, ...(body ? [{ type: 'null' }] : [])],
  };
}

/** Whether `schema` takes an empty `name`: no issue names it (it is then "not given", or its default). */
function emptyIsAbsent(schema: z.ZodType, name: string) {
  const result = schema.safeParse({ [name]: '' });
  return result.success || !result.error.issues.some((issue) => issue.path[0] === name);
}

/** Whether a parameter's documented schema already allows the empty string. */
const takesEmpty = (schema: Json) =>
  schema.type === 'string' && !schema.enum && !schema.pattern && !schema.format && !((schema.minLength as number) > 0);

/**
 * What an answer's ticket leads to (OpenAPI links): a client, or a stateful test, follows a ticket from
 * its creation to reading, replying and closing it.
 */
const TICKET_LINKS: Json = {
  read: { operationId: 'get_ticket', parameters: { id: '$response.body#/id' } },
  reply: { operationId: 'post_reply', requestBody: { ticket_id: '$response.body#/id', message: 'Thanks!' } },
  status: { operationId: 'post_status', requestBody: { ticket_id: '$response.body#/id', status: 'closed' } },
  upload: { operationId: 'post_upload', requestBody: { ticket_id: '$response.body#/id' } },
};
const LINKED: Record<string, Json> = {
  'post_create 201': TICKET_LINKS,
  'post_reply 201': TICKET_LINKS,
  'get_ticket 200': { reply: TICKET_LINKS.reply, status: TICKET_LINKS.status },
};

/** Request examples, one per operation where a first-time reader needs one. */
const EXAMPLES: Record<string, Json> = {
  post_create: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    subject: 'My order #1042 has not arrived',
    message: 'Hello,\nI ordered a kettle on Monday and it has not arrived yet.',
    page_url: 'https://shop.example/orders',
  },
  post_reply: { ticket_id: 'tkt_Rb8gza8DbXpy0UkvJgiP', message: 'It left our warehouse today: tracking 123.' },
  post_status: { ticket_id: 'tkt_Rb8gza8DbXpy0UkvJgiP', status: 'closed' },
};

const operationId = (route: RouteDef<never>) => `${route.method}_${route.path.slice(1).replace(/[^a-zA-Z0-9]+/g, '_')}`;

/**
 * Converts the routes' zod schemas to JSON Schema in one pass per direction (answers as output, with
 * closed objects; requests as input, with the coercions forms allow). Schemas with an id (Ticket, …)
 * become components; the routes' own schemas are inlined into their operations.
 */
function convert(entries: Map<string, z.ZodType>, io: 'input' | 'output') {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    unrepresentable: 'any',
    uri: (id) => `${COMPONENT}${id}`,
  }) as { schemas: Record<string, Json> };
  const shared = (schemas.__shared?.$defs ?? {}) as Record<string, Json>;
  delete schemas.__shared;
  // Shared schemas of requests get their own names: the same id may read differently as an input.
  const rename = (name: string) => (io === 'input' ? `${name}Input` : name);
  let text = JSON.stringify(schemas);
  text = text.replace(new RegExp(`"${SHARED.replace(/[$/#]/g, '\\$&')}([^"]+)"`, 'g'), (_m, name: string) =>
    JSON.stringify(`${COMPONENT}${rename(name)}`),
  );
  const converted = JSON.parse(text) as Record<string, Json>;
  const components = Object.fromEntries(
    Object.entries(JSON.parse(JSON.stringify(shared).replaceAll(SHARED, COMPONENT)) as Record<string, Json>).map(
      ([name, s]) => [rename(name), s],
    ),
  );
  for (const s of Object.values(converted)) {
    delete s.$schema;
    delete s.$id;
  }
  return { converted, components };
}

/** GET's operation as HEAD: the same statuses and headers, no content. */
function headOperation(get: Json): Json {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, Json>).map(([status, { content: _body, ...rest }]) => [
      status,
      rest,
    ]),
  );
  return {
    ...get,
    operationId: `head_${(get.operationId as string).replace(/^get_/, '')}`,
    summary: `${get.summary as string} (headers only)`,
    responses,
  };
}

/**
 * The CORS preflight a browser sends before a cross-origin call (http/cors.ts): 204 with the allowed
 * methods and headers, for any origin and without a key; the real request then checks the key's origins.
 */
function preflightOperation(path: string, methods: string[]): Json {
  return {
    operationId: `options_${path.slice(1).replace(/[^a-zA-Z0-9]+/g, '_')}`,
    summary: 'CORS preflight',
    description: `Methods here: ${methods.map((m) => m.toUpperCase()).join(', ')}. Without a preflight request (no Origin), 200 with Allow.`,
    tags: [path.slice(1)],
    security: [],
    responses: {
      '204': {
        description: 'What a cross-origin request may send',
        headers: {
          'X-Request-Id': headerRef('X-Request-Id'),
          'Access-Control-Allow-Origin': headerRef('Access-Control-Allow-Origin'),
          'Access-Control-Allow-Methods': headerRef('Access-Control-Allow-Methods'),
          'Access-Control-Allow-Headers': headerRef('Access-Control-Allow-Headers'),
          'Access-Control-Max-Age': headerRef('Access-Control-Max-Age'),
        },
      },
      '200': {
        description: 'Not a preflight: the methods this path takes',
        headers: { 'X-Request-Id': headerRef('X-Request-Id'), Allow: headerRef('Allow') },
      },
    },
  };
}

/** The load balancers' probes, outside /v1 (health/health.ts): no key, never cached. */
function probePaths(serverUrl: string): Record<string, Json> {
  const servers = [{ url: serverUrl.replace(/\/v1$/, '') || '/' }];
  const checks = {
    type: 'object',
    description: 'Each check: `ok`, and an `error` code when it fails',
    additionalProperties: {
      type: 'object',
      properties: { ok: { type: 'boolean' }, error: { type: 'string' } },
      required: ['ok'],
    },
  };
  const json = (schema: Json) => ({ 'application/json': { schema } });
  const headers = { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } };
  const probe = (name: string, summary: string, responses: Json) => {
    const operation = { summary, tags: ['probes'], security: [], responses };
    const head = Object.fromEntries(
      Object.entries(responses).map(([status, r]) => [status, { description: (r as Json).description, headers }]),
    );
    return {
      get: { operationId: `get_${name}`, ...operation },
      head: { operationId: `head_${name}`, ...operation, summary: `${summary} (headers only)`, responses: head },
    };
  };
  return {
    '/health': {
      servers,
      ...probe('health', 'The process answers', {
        '200': {
          description: 'Alive',
          headers,
          content: json({
            type: 'object',
            properties: { status: { const: 'ok' }, version: { type: 'string' } },
            required: ['status', 'version'],
            additionalProperties: false,
          }),
        },
      }),
    },
    '/ready': {
      servers,
      ...probe('ready', 'It can do its work: storage takes writes, the outbox moves, it is not stopping', {
        '200': {
          description: 'Ready',
          headers,
          content: json({
            type: 'object',
            properties: { status: { const: 'ready' }, checks },
            required: ['status', 'checks'],
          }),
        },
        '503': {
          description: 'Not ready: take it out of the rotation',
          headers,
          content: json({
            type: 'object',
            properties: { status: { type: 'string' }, checks },
            required: ['status'],
          }),
        },
      }),
    },
  };
}

/**
 * The legacy .php paths: 308 to the same endpoint without it, for every method (docs/api.md). A path
 * parameter holds no `/` (OpenAPI 3.1), so a name with one (`admin/mail-test`) is a path of its own.
 */
function legacyPaths(routes: readonly RouteDef<never>[]) {
  const all = [...new Set(routes.map((r) => r.path.slice(1)))].sort();
  const names = all.filter((n) => !n.includes('/'));
  const operation = (method: string, nested?: string) => ({
    operationId: `${method}_legacy_php${nested ? `_${nested.replace(/[^a-z0-9]+/g, '_')}` : ''}`,
    summary: `${method.toUpperCase()} /<endpoint>.php: redirects to /<endpoint>`,
    description:
      'Older integrations call /v1/<endpoint>.php; 308 keeps the method and the body. Answered before any key is looked at.',
    tags: ['legacy'],
    security: [],
    parameters: nested
      ? []
      : [{ name: 'endpoint', in: 'path', required: true, schema: { type: 'string', enum: names } }],
    responses: {
      '308': {
        description: 'The endpoint without .php',
        headers: { Location: headerRef('Location'), 'X-Request-Id': headerRef('X-Request-Id') },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { redirect: { type: 'string' } },
              required: ['redirect'],
              additionalProperties: false,
            },
          },
        },
      },
      '404': {
        description: 'not_found: no such endpoint',
        headers: { 'X-Request-Id': headerRef('X-Request-Id') },
        content: { 'application/json': { schema: ref('Error') } },
      },
    },
  });
  const item = (nested?: string) => ({
    get: operation('get', nested),
    post: operation('post', nested),
    delete: operation('delete', nested),
  });
  return {
    '/{endpoint}.php': item(),
    ...Object.fromEntries(all.filter((n) => n.includes('/')).map((n) => [`/${n}.php`, item(n)])),
  };
}

/**
 * OpenAPI 3.1 from the route table: every route's access, query, body (per encoding, files included),
 * request headers, answers (with their headers) and the errors it can give. Nothing is written twice:
 * the schemas are the ones the server validates with.
 */
export function openApiDocument(
  routes: readonly RouteDef<never>[],
  info: { version: string; serverUrl: string },
): Json {
  // A schema with an id of its own (Ticket, Attachment, …) is a component wherever it appears; the
  // routes' other schemas are inlined into their operations.
  const named = (schema: z.ZodType) => z.globalRegistry.get(schema)?.id;
  const outputs = new Map<string, z.ZodType>([['Error', ErrorBodySchema]]);
  const inputs = new Map<string, z.ZodType>();
  for (const route of routes) {
    const id = operationId(route);
    for (const [status, answer] of Object.entries(route.responses))
      if (answer.schema) outputs.set(named(answer.schema) ?? `${id}_${status}`, answer.schema);
    if (route.query) inputs.set(`${id}_query`, route.query);
    if (route.body) inputs.set(`${id}_body`, route.body.documented ?? route.body.schema);
  }
  const out = convert(outputs, 'output');
  const inp = convert(inputs, 'input');
  const schemas: Record<string, Json> = { ...out.components, ...inp.components };
  for (const [name, schema] of outputs) if (named(schema)) schemas[name] = out.converted[name]!;
  const answerSchema = (id: string, status: string, schema: z.ZodType | undefined) =>
    !schema ? undefined : named(schema) ? ref(named(schema)!) : out.converted[`${id}_${status}`];

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const id = operationId(route);
    const query = inp.converted[`${id}_query`];
    const parameters: Json[] = [];
    if (query) {
      const required = (query.required ?? []) as string[];
      for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
        const { description, ...rest } = withEmpty(schema, route.query!, name, required, false);
        parameters.push({
          name,
          in: 'query',
          required: required.includes(name),
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    }
    for (const h of route.requestHeaders ?? []) parameters.push(REQUEST_HEADERS[h]!);

    let requestBody: Json | undefined;
    let body = inp.converted[`${id}_body`];
    if (route.body && body?.properties) {
      const schema = route.body.documented ?? route.body.schema;
      const required = (body.required ?? []) as string[];
      body = {
        ...body,
        properties: Object.fromEntries(
          Object.entries(body.properties as Record<string, Json>).map(([name, p]) => [
            name,
            withEmpty(p, schema, name, required, true),
          ]),
        ),
      };
    }
    if (route.body && body) {
      const content: Record<string, { schema: Json; example?: Json }> = {};
      for (const encoding of route.body.encodings) {
        let schema = body;
        const files = route.body.files;
        if (encoding === 'multipart' && files) {
          const [field] = files.fields;
          const binary = { type: 'string', format: 'binary' };
          schema = {
            ...body,
            properties: {
              ...(body.properties as Json),
              [field!]: files.max === 1 ? binary : { type: 'array', items: binary, maxItems: files.max },
            },
            ...(files.required ? { required: [...((body.required as string[]) ?? []), field!] } : {}),
          };
        }
        const example = encoding === 'json' ? EXAMPLES[id] : undefined;
        content[MEDIA[encoding]] = example ? { schema, example } : { schema };
      }
      requestBody = { required: !route.body.optional, content };
    }

    const responses: Record<string, Json> = {};
    for (const [status, answer] of Object.entries(route.responses)) {
      const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
      for (const h of answer.headers ?? []) headers[h] = headerRef(h);
      const schema = answerSchema(id, status, answer.schema);
      // JSON, other media types (a download), or both (an answer that a query parameter turns into a file).
      const content =
        schema || answer.media
          ? {
              ...(schema ? { 'application/json': { schema } } : {}),
              ...Object.fromEntries(Object.entries(answer.media ?? {}).map(([type, s]) => [type, { schema: s }])),
            }
          : undefined;
      const links = LINKED[`${id} ${status}`];
      responses[status] = {
        description: answer.description,
        headers,
        ...(content ? { content } : {}),
        ...(links ? { links } : {}),
      };
    }
    for (const [status, codes] of Object.entries(errorCodes(route))) {
      const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
      for (const h of ERROR_HEADERS[Number(status)] ?? []) headers[h] = headerRef(h);
      responses[status] = {
        description: `${STATUS_TEXT[Number(status)] ?? 'Error'}: ${codes.join(', ')}`,
        headers,
        content: { 'application/json': { schema: ref('Error') } },
      };
    }

    (paths[route.path] ??= {})[route.method] = {
      operationId: id,
      summary: route.summary,
      description: [
        route.description,
        `Access: ${ACCESS_TEXT[route.access]}.`,
        route.module ? `Customers get 403 module_disabled while the ${route.module} module is off.` : undefined,
      ]
        .filter(Boolean)
        .join(' '),
      tags: [route.path.slice(1)],
      ...(route.access === 'open' ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  for (const [path, item] of Object.entries(paths)) {
    const get = item.get as Json | undefined;
    // HEAD: what GET answers, without the body (Koa's router answers it for every GET).
    if (get) item.head = headOperation(get);
    item.options = preflightOperation(path, Object.keys(item));
  }
  Object.assign(paths, legacyPaths(routes), probePaths(info.serverUrl));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Ticketing API',
      version: info.version,
      description:
        'Customer-support tickets over HTTP. Requests carry `Authorization: Bearer <key>` (a public pk_… or a ' +
        'secret sk_… key) unless an operation says otherwise. Errors are `{ "error": { "code", "message", ' +
        '"param"?, "details"? } }`. A path with another method answers 405 with `Allow`; an unknown path 404, ' +
        'both before any key is looked at.',
    },
    servers: [{ url: info.serverUrl }],
    security: [{ bearer: [] }, { session: [] }],
    tags: [...new Set(routes.map((r) => r.path.slice(1))), 'legacy', 'probes'].map((name) => ({
      name,
      description:
        name === 'legacy'
          ? 'Redirects for integrations that call /<endpoint>.php'
          : name === 'probes'
            ? 'Health checks for load balancers and monitors (outside /v1)'
            : `${API_PREFIX}/${name}`,
    })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'pk_… or sk_… key' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'ticketing_session',
          description:
            'An agent’s console session (POST /v1/session; __Host-ticketing_session with https): what a secret ' +
            'key may do, as that agent. Unsafe methods also need X-CSRF-Token.',
        },
      },
      headers: HEADERS,
      schemas,
    },
    paths,
  };
}

const ACCESS_TEXT = {
  open: 'no credential needed',
  customer: 'any key (a public key names a ticket only with its email)',
  staff: 'support: a secret key or an agent’s session',
  admin: 'a live secret key (sk_live_) or the session of an agent with the admin role',
} as const;
