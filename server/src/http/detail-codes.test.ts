import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../test-support/server.js';

// A refused field's detail says what is wrong for programs too (code, limit, value), so the console
// can say it in its own language instead of showing the server's English (issue 30).

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe('validation details carry a code', () => {
  it('names a duplicate with the repeated value', async () => {
    const res = await s.call('POST', '/admin?r=categories', {
      json: {
        categories: [
          { id: 'returns', name: 'Returns' },
          { id: 'returns', name: 'Returns again' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toContainEqual({
      param: 'categories.1.id',
      message: 'duplicate category "returns"',
      code: 'duplicate',
      value: 'returns',
    });
  });

  it('says required, too long with its limit, a bad format and a bad choice', async () => {
    const res = await s.call('POST', '/create', {
      json: { name: '', email: 'not-an-address', subject: 'x'.repeat(301), message: 'Hello' },
    });
    expect(res.status).toBe(400);
    const byParam = Object.fromEntries(
      (res.body.error.details as { param: string }[]).map((d) => [d.param, d]),
    ) as Record<string, Record<string, unknown>>;
    expect(byParam.name).toMatchObject({ code: 'required' });
    expect(byParam.subject).toMatchObject({ code: 'too_long', limit: 300 });
    expect(byParam.email).toMatchObject({ code: 'invalid_format', value: 'email' });

    const theme = await s.call('POST', '/admin?r=design', { json: { theme: 'purple' } });
    expect(theme.status).toBe(400);
    expect(theme.body.error.details).toContainEqual(
      expect.objectContaining({ param: 'theme', code: 'invalid_choice' }),
    );
  });
});
