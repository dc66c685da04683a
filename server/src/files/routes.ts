import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import type { Attachment } from '../api-types.js';
import type { Deps } from '../deps.js';
import { readBody } from '../http/body.js';
import { id, optional } from '../http/coerce.js';
import { notFound, validationError } from '../http/errors.js';
import { chargeUpload, checkTicketQuota } from '../http/quota.js';
import { requireModule } from '../portal/modules.js';
import type { Route } from '../http/route.js';
import { validate } from '../http/validate.js';
import { newId } from '../store/ids.js';
import { findTicket, ownerCheck, storeFor } from '../tickets/lookup.js';
import { ownerEmail } from '../tickets/schema.js';
import { checkFile } from './check-file.js';

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

export function fileRoutes(route: Route, deps: Deps) {
  route('post', 'upload', async (ctx) => {
    requireModule(ctx, deps.configStore.get(), 'uploads', 'Uploading files');
    const body = await readBody(ctx, { multipartOnly: true, files: { fields: ['file'], max: 1 } });
    const input = validate(UploadInput, body.fields);
    const upload = body.files[0];
    if (!upload) throw validationError('file', 'is required');
    const owns = ownerCheck(ctx, input.email);
    const checked = await checkFile(upload, 'file');
    chargeUpload(ctx, deps, [checked.data.length]);
    let attachment: Attachment | undefined;
    const updated = await storeFor(ctx, deps).update(input.ticket_id, (current) => {
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
        const reply = ticket.replies.find((r) => r.id === input.reply_id);
        if (!reply) throw validationError('reply_id', 'is not a reply of this ticket');
        reply.attachments.push(attachment);
      } else {
        ticket.attachments.push(attachment);
      }
      checkTicketQuota(deps.config.quotas, current, [checked.data.length], 'file');
      ticket.updated_at = at;
      return { ticket, files: [{ id: attachment.id, data: checked.data }] };
    });
    if (!updated || !attachment) throw notFound('ticket');
    const actor = { kind: ctx.state.auth.kind, prefix: ctx.state.auth.prefix };
    await deps.events.emit({
      type: 'file.uploaded',
      mode: ctx.state.auth.mode,
      actor,
      ticket: updated,
      file: attachment,
    });
    ctx.status = 201;
    ctx.body = attachment;
  });

  route('get', 'file', async (ctx) => {
    const query = validate(FileQuery, ctx.query);
    const ticket = await findTicket(ctx, deps, query.ticket_id, query.email);
    const all = [...ticket.attachments, ...ticket.replies.flatMap((r) => r.attachments)];
    const meta = all.find((a) => a.id === query.file_id);
    const data = meta && (await storeFor(ctx, deps).readFile(ticket.id, meta.id));
    if (!meta || !data) throw notFound('file');
    // Always a download, never rendered: a text that looks like HTML must not run in our origin.
    ctx.set('Content-Disposition', attachmentHeader(meta.name));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', 'sandbox');
    ctx.set('Cache-Control', 'private, no-store');
    ctx.type = meta.type;
    ctx.body = data;
  });
}
