import { z } from 'zod';
import { LIST_RESOURCES, OBJECT_RESOURCES } from '../admin/resources.js';
import {
  AgentInputSchema,
  ArticleInputSchema,
  WebhookSecretInputSchema,
  EmailNotifySchema,
  SmtpSchema,
  AutoreplySchema,
  BusinessHoursSchema,
} from '../admin/schema.js';
import { ErrorBodySchema, KbListItemSchema } from '../api-types.js';
import { ENDPOINTS, type Access } from '../http/endpoints.js';
import {
  AssignInput,
  CloseRequestInput,
  CloseResolveInput,
  CreateInput,
  DeleteInput,
  ListQuery,
  ownerEmail,
  PriorityInput,
  RateInput,
  ReplyInput,
  StatusInput,
  TicketQuery,
} from '../tickets/schema.js';

type JsonSchema = Record<string, unknown>;
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const input = (schema: z.ZodType): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

interface Doc {
  method: 'get' | 'post' | 'delete';
  name: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  encodings?: string[];
  status?: number;
  response: JsonSchema;
  /** When this method needs more than the endpoint's access (route()'s `access`). */
  access?: Access;
}

const FORMS = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
const list = (item: JsonSchema) => ({
  type: 'object',
  properties: {
    data: { type: 'array', items: item },
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
  },
});
const ticket = {
  oneOf: [ref('Ticket'), ref('PublicTicket')],
  description: 'Ticket with a secret key, PublicTicket with a public key',
};
const upload = z.object({
  ticket_id: z.string(),
  file: z.string().meta({ format: 'binary' }),
  reply_id: z.string().optional(),
  email: ownerEmail,
});
const adminQuery = z.object({
  r: z
    .string()
    .describe(
      'the resource: all, a list or object resource, agents, kb, webhook_secrets, priorities, audit, webhook_log or outbox',
    ),
  id: z.string().optional().describe('DELETE r=agents|kb: the entry to remove'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .describe('r=audit|webhook_log|outbox: entries, newest first (default 100)'),
});
const settingsBody = z.object({
  email_notify: EmailNotifySchema.optional(),
  smtp: SmtpSchema.optional(),
  autoreply: AutoreplySchema.optional(),
  business_hours: BusinessHoursSchema.optional(),
});

const DOCS: Doc[] = [
  {
    method: 'post',
    name: 'create',
    summary: 'Create a ticket (multipart: files in attachments[])',
    body: CreateInput,
    status: 201,
    response: ticket,
  },
  {
    method: 'get',
    name: 'list',
    summary: 'List tickets, newest first',
    query: ListQuery,
    response: list(ref('TicketListItem')),
  },
  {
    method: 'get',
    name: 'ticket',
    summary: 'Read one ticket (with a public key, email is required); ETag and If-None-Match',
    query: TicketQuery,
    response: ticket,
  },
  {
    method: 'post',
    name: 'reply',
    summary: 'Reply: as the customer with a public key, as support with a secret key',
    body: ReplyInput,
    status: 201,
    response: ticket,
  },
  { method: 'post', name: 'status', summary: 'Change the status', body: StatusInput, response: ticket },
  { method: 'post', name: 'priority', summary: 'Set the priority', body: PriorityInput, response: ticket },
  {
    method: 'post',
    name: 'assign',
    summary: 'Assign to an agent ("" or null removes)',
    body: AssignInput,
    response: ticket,
  },
  {
    method: 'delete',
    name: 'delete',
    summary: 'Delete a ticket and its files',
    body: DeleteInput,
    response: { type: 'object', properties: { id: { type: 'string' }, deleted: { const: true } } },
  },
  {
    method: 'post',
    name: 'close-request',
    summary: 'Ask for the ticket to be closed',
    body: CloseRequestInput,
    response: ticket,
  },
  {
    method: 'post',
    name: 'close-resolve',
    summary: 'Accept or reject a close request',
    body: CloseResolveInput,
    response: ticket,
  },
  { method: 'post', name: 'rate', summary: 'Rate a ticket 1-5', body: RateInput, response: ticket },
  {
    method: 'post',
    name: 'upload',
    summary: 'Upload a file (at most 5,242,880 bytes; jpg, png, gif, webp, pdf, txt, log, json, csv, zip)',
    body: upload,
    encodings: ['multipart/form-data'],
    status: 201,
    response: ref('Attachment'),
  },
  {
    method: 'get',
    name: 'file',
    summary: 'Download an attachment (always as a download)',
    query: z.object({ ticket_id: z.string(), file_id: z.string(), email: ownerEmail }),
    response: { type: 'string', format: 'binary' },
  },
  {
    method: 'get',
    name: 'meta',
    summary: 'Categories with custom fields, statuses and priorities',
    response: { type: 'object' },
  },
  {
    method: 'get',
    name: 'kb',
    summary: 'Knowledge base: overview (ranked with q) or one article (id)',
    query: z.object({ id: z.string().optional(), q: z.string().optional() }),
    response: { oneOf: [list(input(KbListItemSchema)), { type: 'object' }] },
  },
  { method: 'get', name: 'me', summary: 'What this key is', response: ref('Me') },
  {
    method: 'get',
    name: 'widget-config',
    summary: 'Design, form, modules, categories and opening hours for the widget',
    response: { type: 'object' },
  },
  { method: 'get', name: 'settings', summary: 'Read the mail settings', response: { type: 'object' } },
  {
    method: 'post',
    name: 'settings',
    summary: 'Write the mail settings; replaces only the sub-objects named',
    access: 'sk_live',
    body: settingsBody,
    encodings: ['application/json'],
    response: { type: 'object' },
  },
  {
    method: 'get',
    name: 'admin',
    summary: 'Read a configuration resource or a log',
    query: adminQuery,
    response: { type: 'object' },
  },
  {
    method: 'post',
    name: 'admin',
    summary:
      'Write a configuration resource (lists replaced whole; objects written whole; agents and kb one entry at a time)',
    query: adminQuery,
    body: z.union([
      ...Object.entries(LIST_RESOURCES).map(([r, schema]) => z.object({ [r]: schema }).describe(`r=${r}`)),
      ...Object.entries(OBJECT_RESOURCES).map(([r, schema]) => schema.describe(`r=${r}`)),
      AgentInputSchema.describe('r=agents'),
      ArticleInputSchema.describe('r=kb'),
      WebhookSecretInputSchema.describe('r=webhook_secrets'),
    ] as unknown as [z.ZodType, z.ZodType]),
    encodings: ['application/json'],
    response: { type: 'object' },
  },
  {
    method: 'delete',
    name: 'admin',
    summary: 'Remove an agent or an article (r=agents|kb, id=…)',
    query: adminQuery,
    response: { type: 'object', properties: { id: { type: 'string' }, deleted: { const: true } } },
  },
];

const ERRORS: Record<string, string> = {
  '400': 'validation_failed, invalid_json, unknown_agent',
  '401': 'missing_api_key, invalid_api_key',
  '403': 'secret_key_required, live_secret_key_required, origin_not_allowed, blocked, module_disabled, captcha_failed',
  '404': 'not_found, ticket_not_found, file_not_found, article_not_found, agent_not_found, resource_not_found',
  '409': 'no_close_request, ticket_closed, status_in_use, idempotency_key_reused',
  '413': 'file_too_large, payload_too_large, ticket_quota_exceeded',
  '415': 'unsupported_file_type, unsupported_media_type',
  '429': 'rate_limited, upload_quota_exceeded (Retry-After)',
  '503': 'unavailable (Retry-After)',
};

/** OpenAPI 3.1, generated from the zod schemas the server validates with. */
export function openApiDocument(version: string, serverUrl: string): JsonSchema {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }) as {
    schemas: Record<string, JsonSchema>;
  };
  // zod names each schema with "$id": "#/components/schemas/X"; a fragment-only $id is not valid JSON
  // Schema 2020-12 and makes resolvers (Swagger UI's among them) look for refs inside the schema itself.
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const d of DOCS) {
    const access = d.access ?? ENDPOINTS[d.name];
    const parameters = d.query
      ? Object.entries((input(d.query).properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => ({
          name,
          in: 'query',
          required: ((input(d.query!).required ?? []) as string[]).includes(name),
          schema,
        }))
      : undefined;
    const body = d.body && {
      required: true,
      content: Object.fromEntries((d.encodings ?? FORMS).map((type) => [type, { schema: input(d.body!) }])),
    };
    (paths[`/${d.name}`] ??= {})[d.method] = {
      operationId: `${d.method}_${d.name.replace(/-/g, '_')}`,
      summary: d.summary,
      description: `Access: ${access === 'pk' ? 'public or secret key' : access === 'sk' ? 'secret key' : 'live secret key (sk_live_)'}.`,
      security: [{ bearer: [] }],
      ...(parameters ? { parameters } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: {
        [String(d.status ?? 200)]: {
          description: 'OK',
          content: { [d.name === 'file' ? 'application/octet-stream' : 'application/json']: { schema: d.response } },
        },
        ...Object.fromEntries(
          Object.entries(ERRORS).map(([status, codes]) => [
            status,
            { description: codes, content: { 'application/json': { schema: ref('Error') } } },
          ]),
        ),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ticketing API',
      version,
      description:
        // Markdown (renderers such as /docs show it): code spans keep <key> and the JSON visible.
        'Customer-support tickets over HTTP. Every request carries `Authorization: Bearer <key>`. Errors: `' +
        JSON.stringify(input(ErrorBodySchema)) +
        '`',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'pk_… or sk_… key' } },
      schemas,
    },
    paths,
  };
}
