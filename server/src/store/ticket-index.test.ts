import { describe, expect, it } from 'vitest';
import { INBOX_VIEWS, LIST_SORTS, type Ticket } from '../model/index.js';
import { customerSpokeLast, listItem, TicketIndex } from './ticket-index.js';
import type { ListContext } from './ticket-store.js';

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['open', 'pending', 'answered', 'closed'];

function ticket(id: number, created: number, status: string, email: string): Ticket {
  const at = new Date(Date.UTC(2026, 0, 1) + created * 1000).toISOString();
  return {
    id: `tkt_${String(id).padStart(16, '0')}`,
    number: 1001 + id,
    subject: `subject ${id}`,
    message: `message ${id}`,
    name: `name ${id}`,
    email,
    status,
    priority: 'normal',
    category: id % 2 ? 'a' : 'b',
    fields: {},
    page_url: null,
    agent_id: null,
    tags: id % 3 ? [] : ['vip'],
    close_request: null,
    rating: null,
    replies: [],
    attachments: [],
    due_at: null,
    closed_at: null,
    created_at: at,
    updated_at: at,
  };
}

describe('TicketIndex', () => {
  it('answers every list exactly like a naive filter, through random puts, status changes and removals', () => {
    const rnd = random(42);
    const index = new TicketIndex();
    const model = new Map<string, Ticket>();
    for (let i = 0; i < 200; i++) {
      const t = ticket(i, Math.floor(rnd() * 500), STATUSES[i % 4]!, `c${i % 7}@x.example`);
      index.add(t);
      model.set(t.id, t);
    }
    index.sorted();
    let next = 200;
    for (let step = 0; step < 3000; step++) {
      const r = rnd();
      const ids = [...model.keys()];
      if (r < 0.4 || ids.length === 0) {
        // new ticket, sometimes with an older time (a clock that went back)
        const t = ticket(
          next++,
          Math.floor(r < 0.05 ? rnd() * 500 : 500 + step),
          STATUSES[Math.floor(rnd() * 4)]!,
          `c${next % 7}@x.example`,
        );
        index.put(t);
        model.set(t.id, t);
      } else if (r < 0.8) {
        const t = { ...model.get(ids[Math.floor(rnd() * ids.length)]!)!, status: STATUSES[Math.floor(rnd() * 4)]! };
        index.put(t);
        model.set(t.id, t);
      } else {
        const id = ids[Math.floor(rnd() * ids.length)]!;
        index.remove(id);
        model.delete(id);
      }
      if (step % 250 !== 0) continue;
      const naive = [...model.values()].sort((a, b) =>
        a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
      );
      for (const filter of [
        {},
        { status: 'open' },
        { status: 'closed', tag: 'vip' },
        { category: 'a' },
        { email: 'C3@x.example' },
        { status: 'nope' },
      ]) {
        const f = filter as Record<string, string>;
        const expected = naive.filter(
          (t) =>
            (f.status === undefined || t.status === f.status) &&
            (f.category === undefined || t.category === f.category) &&
            (f.tag === undefined || t.tags.includes(f.tag)) &&
            (f.email === undefined || t.email.toLowerCase() === f.email.toLowerCase()),
        );
        for (const [limit, offset] of [
          [50, 0],
          [7, 3],
          [200, 40],
        ] as const) {
          const got = index.list(filter, limit, offset);
          expect(got.total, JSON.stringify(filter)).toBe(expected.length);
          expect(got.items.map((i) => i.id)).toEqual(expected.slice(offset, offset + limit).map((t) => t.id));
        }
      }
      expect(index.size).toBe(model.size);
    }
  });

  it('builds list items with exactly the list view fields', () => {
    const item = listItem({ ...ticket(1, 1, 'open', 'a@x.example'), escalated: ['late'] });
    expect(Object.keys(item).sort()).toEqual(
      [
        'agent_id',
        'category',
        'close_request',
        'closed_at',
        'created_at',
        'due_at',
        'email',
        'fields',
        'id',
        'last_activity_at',
        'last_message',
        'last_reply_at',
        'mentions',
        'name',
        'number',
        'page_url',
        'priority',
        'rating',
        'reply_count',
        'snoozed_until',
        'status',
        'subject',
        'tags',
        'updated_at',
        'waiting_on',
      ].sort(),
    );
  });

  it('answers every view, sort and count like a naive model, through random changes', () => {
    const rnd = random(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
    const index = new TicketIndex();
    const model = new Map<string, Ticket>();
    const time = (minutes: number) => new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
    const vary = (t: Ticket): Ticket => {
      const replies = Array.from({ length: Math.floor(rnd() * 3) }, (_, i) => ({
        id: `rpl_${t.id}${i}`,
        message: pick(['hello', 'WORD here', 'thanks']),
        from_customer: rnd() < 0.5,
        author: null,
        created_at: time(1000 + Math.floor(rnd() * 500)),
        attachments: [],
        // Some notes mention agt_1 or agt_2 (the mentions view and its counters).
        ...(rnd() < 0.2
          ? { internal: true as const, ...(rnd() < 0.6 ? { mentions: [pick(['agt_1', 'agt_2'])] } : {}) }
          : {}),
      })).sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
      return {
        ...t,
        status: pick(STATUSES),
        priority: pick(['low', 'normal', 'high', 'urgent'] as const),
        agent_id: pick([null, 'agt_1', 'agt_2']),
        due_at: rnd() < 0.3 ? null : time(Math.floor(rnd() * 2000)),
        updated_at: time(Math.floor(rnd() * 1500)),
        // Some snoozed: until before or after now (1000), so both asleep and woken ones occur.
        snoozed_until: rnd() < 0.3 ? time(Math.floor(rnd() * 2000)) : null,
        replies,
      };
    };
    for (let i = 0; i < 150; i++) {
      const t = vary(ticket(i, Math.floor(rnd() * 300), 'open', `c${i % 5}@x.example`));
      index.add(t);
      model.set(t.id, t);
    }
    index.sorted();
    const context = (sort: (typeof LIST_SORTS)[number]): ListContext => ({
      sort,
      closed: ['closed'],
      me: 'agt_1',
      now: time(1000),
      soon: time(1240),
    });
    const ctx = context('created');
    const open = (t: Ticket) => t.status !== 'closed';
    const asleep = (t: Ticket) => !!t.snoozed_until && t.snoozed_until > ctx.now;
    const inView: Record<string, (t: Ticket) => boolean> = {
      needs_reply: (t) => open(t) && customerSpokeLast(t) && !asleep(t),
      snoozed: (t) => open(t) && asleep(t),
      mine: (t) => open(t) && t.agent_id === 'agt_1',
      mentions: (t) => open(t) && t.replies.some((r) => r.mentions?.includes('agt_1')),
      unassigned: (t) => open(t) && t.agent_id === null,
      due_soon: (t) => open(t) && t.due_at !== null && t.due_at >= ctx.now && t.due_at < ctx.soon,
      overdue: (t) => open(t) && t.due_at !== null && t.due_at < ctx.now,
      open,
      closed: (t) => !open(t),
      all: () => true,
    };
    const item = (t: Ticket) => listItem(t);
    const rank = { low: 0, normal: 1, high: 2, urgent: 3 };
    const newest = (a: Ticket, b: Ticket) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1;
    const orders: Record<string, (a: Ticket, b: Ticket) => number> = {
      created: newest,
      activity: (a, b) => {
        const x = item(a).last_activity_at;
        const y = item(b).last_activity_at;
        return x === y ? (a.id < b.id ? 1 : -1) : x < y ? 1 : -1;
      },
      due: (a, b) =>
        a.due_at === b.due_at
          ? newest(a, b)
          : a.due_at === null
            ? 1
            : b.due_at === null
              ? -1
              : a.due_at < b.due_at
                ? -1
                : 1,
      priority: (a, b) => rank[b.priority] - rank[a.priority] || newest(a, b),
    };
    let next = 150;
    for (let step = 0; step < 600; step++) {
      const r = rnd();
      const ids = [...model.keys()];
      if (r < 0.3) {
        const t = vary(ticket(next++, 300 + step, 'open', 'n@x.example'));
        index.put(t);
        model.set(t.id, t);
      } else if (r < 0.85) {
        const t = vary(model.get(pick(ids))!);
        index.put(t);
        model.set(t.id, t);
      } else {
        const id = pick(ids);
        index.remove(id);
        model.delete(id);
      }
      if (step % 100 !== 0) continue;
      const counts = index.counts(ctx);
      for (const view of INBOX_VIEWS) {
        const members = [...model.values()].filter(inView[view]!);
        expect(counts.views[view], view).toBe(members.length);
        for (const sort of LIST_SORTS) {
          const expected = [...members].sort(orders[sort]).map((t) => t.id);
          for (const [limit, offset, q] of [
            [50, 0, undefined],
            [7, 3, undefined],
            [10, 0, 'word'],
          ] as const) {
            const want = q
              ? [...members]
                  .sort(orders[sort])
                  .filter((t) => t.replies.some((x) => x.message.toLowerCase().includes(q)))
                  .map((t) => t.id)
              : expected;
            const got = index.list({ view, ...(q ? { q } : {}) }, limit, offset, context(sort));
            expect(got.total, `${view} ${sort}`).toBe(want.length);
            expect(
              got.items.map((i) => i.id),
              `${view} ${sort} ${limit} ${offset}`,
            ).toEqual(want.slice(offset, offset + limit));
          }
        }
      }
      // A view and a status together (the console's status links inside a view).
      for (const view of INBOX_VIEWS) {
        for (const status of ['pending', 'closed']) {
          for (const sort of LIST_SORTS) {
            const want = [...model.values()]
              .filter((t) => inView[view]!(t) && t.status === status)
              .sort(orders[sort])
              .map((t) => t.id);
            const got = index.list({ view, status }, 5, 1, context(sort));
            expect(got.total, `${view} ${status} ${sort}`).toBe(want.length);
            expect(got.items.map((i) => i.id)).toEqual(want.slice(1, 6));
          }
        }
      }
      for (const status of STATUSES) {
        expect(counts.statuses[status] ?? 0).toBe([...model.values()].filter((t) => t.status === status).length);
      }
    }
  });

  it('previews the last message with its white space collapsed, trimmed and cut at 200 characters', () => {
    const preview = (message: string) =>
      listItem({ ...ticket(1, 0, 'open', 'a@x.example'), message }).last_message.preview;
    expect(preview('plain words, single spaces')).toBe('plain words, single spaces');
    expect(preview('  two  spaces\tand a tab\n\nand lines\u00a0nbsp ')).toBe('two spaces and a tab and lines nbsp');
    expect(preview('one\nline')).toBe('one line');
    expect(preview(' padded ')).toBe('padded');
    expect(preview('x'.repeat(500))).toBe('x'.repeat(200));
    expect(preview(`${' '.repeat(390)}${'y'.repeat(30)}`)).toBe('y'.repeat(10)); // only the first 400 characters are looked at
  });
});
