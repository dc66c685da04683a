import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import { checkFile, FILE_TYPES } from '../files/check-file.js';
import { id, optional } from '../http/coerce.js';
import { notFound, validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import { AttachmentSchema, type Attachment } from '../model/index.js';
import { newId } from '../model/index.js';
import type { TicketDeps } from './deps.js';
import { findTicket, ownerCheck, secretKeyRequired } from './lookup.js';
import { isNote, shownToCustomer } from './views.js';
import { ownerEmail } from './schema.js';

const route = routeFor<Pick<TicketDeps, 'configStore' | 'tickets' | 'files' | 'events' | 'clock' | 'quotas'>>();

const UploadInput = z.object({
  ticket_id: id,
  reply_id: optional(z.string().max(100)),
  email: ownerEmail,
});
const FileQuery = z.object({ ticket_id: id, file_id: id, email: ownerEmail });

/**
 * RFC 6266: a plain-ASCII `filename` for old clients and an RFC 5987 `filename*` with the exact
 * name, always both.
 */
function attachmentHeader(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const header = contentDisposition(name, { type: 'attachment', fallback: ascii });
  if (header.includes('filename*=')) return header;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}

const upload = route({
  method: 'post',
  path: '/upload',
  access: 'customer',
  module: 'uploads',
  stores: 'files',
  summary: 'Upload a file to a ticket or one of its replies',
  description:
    'At most 5,242,880 bytes; jpg, png, gif, webp, pdf, txt, log, json, csv or zip, decided by extension and content.',
  body: { schema: UploadInput, encodings: ['multipart'], files: { fields: ['file'], max: 1, required: true } },
  requestHeaders: ['X-Ticketing-Identity'],
  responses: { 201: { description: 'The stored attachment', schema: AttachmentSchema } },
  errors: {
    403: ['secret_key_required'],
    404: ['ticket_not_found'],
    413: ['file_too_large', 'ticket_quota_exceeded'],
    415: ['unsupported_file_type'],
    429: ['upload_quota_exceeded'],
  },
  async handler({ actor, body: input, files, ip }, deps) {
    const file = files[0];
    if (!file) throw validationError('file', 'is required');
    const owns = ownerCheck(actor, input.email);
    const customer = actor.kind === 'customer';
    const checked = await checkFile(file, 'file');
    await deps.quotas.charge(actor, ip, [checked.data.length]);
    let attachment: Attachment | undefined;
    const updated = await deps.tickets[actor.mode].update(input.ticket_id, (current) => {
      const ticket = structuredClone(owns(current));
      const at = deps.clock().toISOString();
      attachment = {
        id: newId('fil'),
        ticket_id: ticket.id,
        reply_id: input.reply_id ?? null,
        name: checked.name,
        size: checked.data.length,
        type: checked.type,
        created_at: at,
      };
      if (input.reply_id !== undefined) {
        // A customer cannot know a note, so to them its id is no reply of the ticket either.
        const reply = ticket.replies.find((r) => r.id === input.reply_id && (!customer || shownToCustomer(r)));
        if (!reply) throw validationError('reply_id', 'is not a reply of this ticket');
        // A customer adds files to their own words only, never to support's (issue 28).
        if (customer && !reply.from_customer) throw secretKeyRequired('Attaching a file to a reply of support');
        reply.attachments.push(attachment);
      } else {
        ticket.attachments.push(attachment);
      }
      deps.quotas.checkTicket(current, [checked.data.length], 'file');
      // A file on a note, like the note, leaves what the customer sees alone.
      if (!ticket.replies.some((r) => r.id === input.reply_id && isNote(r))) ticket.updated_at = at;
      return { ticket, files: [{ id: attachment.id, data: checked.data }] };
    });
    if (!updated || !attachment) throw notFound('ticket');
    await deps.events.emit({ type: 'file.uploaded', mode: actor.mode, actor, ticket: updated, file: attachment });
    return { status: 201, body: attachment };
  },
});

const download = route({
  method: 'get',
  path: '/file',
  access: 'customer',
  summary: 'Download an attachment (always as a download, never rendered)',
  query: FileQuery,
  requestHeaders: ['X-Ticketing-Identity'],
  responses: {
    200: {
      description: 'The file as uploaded, with the Content-Type it was stored as',
      media: Object.fromEntries(FILE_TYPES.map((t) => [t, { type: 'string', format: 'binary' }])),
      headers: ['Content-Disposition', 'Content-Security-Policy', 'Cache-Control'],
    },
  },
  errors: { 404: ['ticket_not_found', 'file_not_found'] },
  async handler({ actor, query }, deps) {
    const store = deps.tickets[actor.mode];
    const ticket = await findTicket(store, actor, query.ticket_id, query.email);
    // A note's files are support's: to a customer they do not exist.
    const replies = actor.kind === 'customer' ? ticket.replies.filter(shownToCustomer) : ticket.replies;
    const all = [...ticket.attachments, ...replies.flatMap((r) => r.attachments)];
    const meta = all.find((a) => a.id === query.file_id);
    const data = meta && (await deps.files[actor.mode].read(ticket.id, meta.id));
    if (!meta || !data) throw notFound('file');
    return {
      raw: { data, type: meta.type },
      headers: {
        'Content-Disposition': attachmentHeader(meta.name),
        // Never rendered: a text that looks like HTML must not run in our origin.
        'Content-Security-Policy': 'sandbox',
        'Cache-Control': 'private, no-store',
      },
    };
  },
});

export const fileRoutes = [upload, download];
