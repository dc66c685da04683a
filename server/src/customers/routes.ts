import { auditEntry, type AuditLog } from '../audit/audit.js';
import { validationError } from '../http/errors.js';
import { routeFor } from '../http/route.js';
import {
  CustomerNoteInputSchema,
  CustomerQuerySchema,
  CustomerSchema,
  newId,
  type CustomerNote,
  type KeyMode,
} from '../model/index.js';
import type { ConfigStore } from '../store/config-store.js';
import type { TicketStore } from '../store/ticket-store.js';

/** What the customer panel needs from the app. */
export interface CustomerPanelDeps {
  configStore: ConfigStore;
  tickets: Record<KeyMode, TicketStore>;
  audit: AuditLog;
  clock: () => Date;
}

const route = routeFor<CustomerPanelDeps>();

/** The customer's tickets the panel lists: the newest, any status. */
const PANEL_TICKETS = 20;

/** A customer's notes are kept per address in any case (Ada@Shop.example and ada@shop.example are one). */
const keyOf = (email: string) => email.trim().toLowerCase();
/**
 * Where config.json keeps them: per mode, as tickets are, so a test key (an integration being built)
 * never reads or writes what the team wrote about live customers.
 */
const notesKey = (mode: KeyMode, email: string) => (mode === 'live' ? email : `${mode}:${email}`);
/** A customer's notes are a panel to read beside a ticket, not a log: past this many, change one. */
const NOTES_MAX = 100;

const customer = route({
  method: 'get',
  path: '/customers',
  access: 'staff',
  summary: 'A customer beside their ticket: their other tickets and the team’s notes about them',
  description:
    'By `email` (any case): the name on their newest ticket, whether they read a recent ticket signed in ' +
    'at the shop (`verified`), their newest 20 tickets of the key’s mode in any status (`total_tickets`: ' +
    'all of them) and the notes any agent wrote about them (/customers/notes). Staff only: a public key ' +
    'gets 403 secret_key_required, whatever the email.',
  query: CustomerQuerySchema,
  responses: { 200: { description: 'The customer', schema: CustomerSchema } },
  async handler({ actor, query }, deps) {
    const email = keyOf(query.email);
    const store = deps.tickets[actor.mode];
    const { items, total } = await store.list({ email }, PANEL_TICKETS, 0);
    // Verified: a ticket the customer read with the shop's signed identity (tickets/seen.ts records it).
    const full = await Promise.all(items.slice(0, 5).map((i) => store.get(i.id)));
    return {
      body: {
        email,
        name: items[0]?.name ?? null,
        verified: full.some((t) => t?.customer_seen !== undefined),
        tickets: items,
        total_tickets: total,
        notes: deps.configStore.get().customer_notes[notesKey(actor.mode, email)] ?? [],
      },
    };
  },
});

const note = route({
  method: 'post',
  path: '/customers/notes',
  access: 'staff',
  summary: 'Write a note about a customer, or change one',
  description:
    'Any agent, whatever their role, and secret keys: `{ email, text }` adds a note (1-5,000 characters) ' +
    'that every agent sees beside each of that customer’s tickets (at most 100 per customer and mode); with ' +
    '`id` it replaces that note’s text ' +
    '(an id that is not a note of this customer: 400, param `id`). Recorded in the audit log ' +
    '(customer.note_added, customer.note_changed). Answers the customer’s notes, oldest first.',
  body: { schema: CustomerNoteInputSchema, encodings: ['json', 'form', 'multipart'] },
  responses: {
    200: { description: 'The customer’s notes', schema: CustomerSchema.pick({ email: true, notes: true }) },
  },
  async handler({ actor, body }, deps) {
    const email = keyOf(body.email);
    const at = deps.clock().toISOString();
    const author = actor.kind === 'agent' ? { author_id: actor.agent.id, author: actor.agent.name } : null;
    let written: CustomerNote | undefined;
    const key = notesKey(actor.mode, email);
    const data = await deps.configStore.update((draft) => {
      const notes = [...(draft.customer_notes[key] ?? [])];
      if (body.id === undefined) {
        if (notes.length >= NOTES_MAX)
          throw validationError('text', `this customer has ${NOTES_MAX} notes already: change one instead`);
        written = {
          id: newId('cno'),
          text: body.text,
          author_id: null,
          author: null,
          ...author,
          created_at: at,
          updated_at: at,
        };
        notes.push(written);
      } else {
        const i = notes.findIndex((n) => n.id === body.id);
        if (i < 0) throw validationError('id', 'is not a note about this customer');
        written = { ...notes[i]!, text: body.text, ...author, updated_at: at };
        notes[i] = written;
      }
      draft.customer_notes = { ...draft.customer_notes, [key]: notes };
    });
    await deps.audit.append(
      auditEntry(
        deps.clock(),
        actor,
        body.id === undefined ? 'customer.note_added' : 'customer.note_changed',
        written!.id,
        {
          email,
        },
      ),
    );
    return { body: { email, notes: data.customer_notes[key] ?? [] } };
  },
});

/** The customer panel beside a ticket. */
export const customerPanelRoutes = [customer, note];
