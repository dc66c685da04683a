import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors.js';
import { validate } from '../http/validate.js';
import { TicketQuery } from './schema.js';

/** What validate answers: the parsed query, or the error's status and details. */
function outcome(input: unknown) {
  try {
    return { data: validate(TicketQuery, input) };
  } catch (err) {
    return { status: (err as ApiError).status, details: (err as ApiError).extra.details };
  }
}

describe("GET /ticket's query: the fast path answers what zod does", () => {
  const long = 'x'.repeat(101);
  it.each([
    { id: 'tkt_0123456789abcdefghij' },
    { id: '  tkt_0123456789abcdefghij ' },
    { id: 'tkt_0123456789abcdefghij', email: 'someone@example.com' },
    { id: 'tkt_0123456789abcdefghij', email: '' },
    { id: 'tkt_0123456789abcdefghij', email: '   ' },
    { id: 'tkt_0123456789abcdefghij', email: undefined },
    { id: 'tkt_0123456789abcdefghij', email: null },
    { id: 'tkt_0123456789abcdefghij', email: 'e'.repeat(254) },
    { id: 'tkt_0123456789abcdefghij', email: 'e'.repeat(255) },
    { id: 'tkt_0123456789abcdefghij', email: ['a@example.com', 'b@example.com'] },
    { id: 'tkt_0123456789abcdefghij', other: 'dropped' },
    { id: 'x'.repeat(100) },
    { id: long },
    { id: '' },
    { id: '   ' },
    { id: ['a', 'b'] },
    { id: 42 },
    {},
    { email: 'someone@example.com' },
  ])('%j', (input) => {
    const zod = TicketQuery.safeParse(input);
    const got = outcome(input);
    if (zod.success) expect(got).toStrictEqual({ data: zod.data });
    else expect(got.status).toBe(400);
    if (!zod.success) expect(got.details?.map((d) => d.param)).toEqual(zod.error.issues.map((i) => i.path.join('.')));
  });

  it('leaves anything but an object to zod', () => {
    expect(outcome(null).status).toBe(400);
    expect(outcome('id=x').status).toBe(400);
  });
});
