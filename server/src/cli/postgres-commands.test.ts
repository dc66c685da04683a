import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { boot } from '../boot.js';
import { loadConfig } from '../config/config.js';
import { runCli } from '../test-support/cli.js';
import { createTicket, PNG_1PX, startServer, ticketInput } from '../test-support/server.js';
import { storedTickets } from '../test-support/stored-tickets.js';
import { createTestDatabase, dropTestDatabase, openTestDatabase } from '../test-support/test-database.js';

// The CLI on PostgreSQL: the move from a data directory, the key commands (this file runs in the `postgres` test project only,
// which has a PostgreSQL server: vitest.config.ts).

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('ticketing migrate --to', () => {
  it('copies a data directory into an empty database, counts checked, and refuses a second time', async () => {
    // The source: a server on JSON files with tickets of both modes, a reply, an attachment, a keyed
    // create, an agent (configuration) and the audit entries these made.
    const source = await startServer({ files: true });
    cleanup.push(() => rm(source.dataDir, { recursive: true, force: true }));
    const keyed = await source.call('POST', '/create', {
      key: source.keys.pk,
      json: ticketInput({ subject: 'keyed' }),
      headers: { 'Idempotency-Key': 'order-1' },
    });
    expect(keyed.status).toBe(201);
    const t = await createTicket(source, { subject: 'with a file' });
    await source.call('POST', '/reply', { json: { ticket_id: t.id, message: 'on it' } });
    const form = new FormData();
    form.append('ticket_id', t.id);
    form.append('file', new Blob([PNG_1PX], { type: 'image/png' }), 'dot.png');
    const file = await source.call('POST', '/upload', { multipart: form });
    expect(file.status).toBe(201);
    await createTicket(source, { subject: 'a test' }, source.keys.pkTest);
    expect(
      (await source.call('POST', '/admin?r=agents', { json: { name: 'Grace', email: 'grace@shop.example' } })).status,
    ).toBe(201);
    await source.close({ keepData: true });
    const before = await storedTickets(source.dataDir);

    const db = await createTestDatabase();
    cleanup.push(() => dropTestDatabase(db.name));
    const moved = await runCli(['migrate', '--to', db.url], { TICKETING_DATA_DIR: source.dataDir });
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toMatch(/tickets:live +2\n/);
    expect(moved.stdout).toMatch(/tickets:test +1\n/);
    expect(moved.stdout).toMatch(/files +1\n/);
    expect(moved.stdout).not.toContain(new URL(db.url).password); // the password is not printed
    // The source is only read.
    expect(await storedTickets(source.dataDir)).toEqual(before);

    // A server on the database finds everything: tickets, the reply, the file's bytes, the agent, the
    // keys (those of the data directory), and the keyed create is answered again, not filed twice.
    const moved2 = await startServer({ databaseUrl: db.url, keys: source.keys });
    cleanup.push(() => moved2.close({ keepData: true }));
    expect((await moved2.call('GET', '/list')).body.total).toBe(2);
    expect((await moved2.call('GET', '/list', { key: source.keys.skTest })).body.total).toBe(1);
    const ticket = (await moved2.call('GET', `/ticket?id=${t.id}`)).body;
    expect(ticket.replies.map((r: { message: string }) => r.message)).toEqual(['on it']);
    const bytes = await fetch(`${moved2.base}/file?ticket_id=${t.id}&file_id=${file.body.id}`, {
      headers: { Authorization: `Bearer ${source.keys.sk}` },
    });
    expect(bytes.status).toBe(200);
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(PNG_1PX);
    // Both agents: the first start's admin and the one made here.
    expect((await moved2.call('GET', '/admin?r=agents')).body.agents.map((a: { name: string }) => a.name)).toEqual([
      'Admin',
      'Grace',
    ]);
    const audit = (await moved2.call('GET', '/admin?r=audit')).body.audit;
    expect(audit.some((e: { action: string }) => e.action.startsWith('agent'))).toBe(true);
    const again = await moved2.call('POST', '/create', {
      key: source.keys.pk,
      json: ticketInput({ subject: 'keyed' }),
      headers: { 'Idempotency-Key': 'order-1' },
    });
    expect(again.body.id).toBe(keyed.body.id);
    expect((await moved2.call('GET', '/list')).body.total).toBe(2);
    // Ticket numbers come along, and the next one follows those the directory gave.
    expect((await moved2.call('GET', `/ticket?id=${t.id}`)).body.number).toBe(1002);
    expect((await createTicket(moved2)).number).toBe(1003);
    expect((await createTicket(moved2, {}, source.keys.pkTest)).number).toBe(1002);
    await moved2.close({ keepData: true });

    // The directory is marked as moved: a second copy, a CLI command or a server on it without the
    // database is refused (a wrapper or cron job that forgot the server's settings), naming no password.
    const second = await runCli(['migrate', '--to', db.url], { TICKETING_DATA_DIR: source.dataDir });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/was moved into PostgreSQL \(.*\); this directory is a frozen copy/);
    expect(second.stderr).not.toContain(new URL(db.url).password);
    const keys = await runCli(['keys', 'create', '--secret'], { TICKETING_DATA_DIR: source.dataDir });
    expect(keys.code).toBe(1);
    expect(keys.stderr).toMatch(/was moved into PostgreSQL/);
    expect(keys.stdout).not.toContain('sk_live_');
    await expect(
      boot(loadConfig({ TICKETING_DATA_DIR: source.dataDir, TICKETING_PORT: '0' }), { print: () => {} }),
    ).rejects.toThrow(/was moved into PostgreSQL/);
    // With the mark removed (the operator's choice), the database still takes no second copy.
    await rm(join(source.dataDir, 'MOVED-TO-POSTGRES'));
    const third = await runCli(['migrate', '--to', db.url], { TICKETING_DATA_DIR: source.dataDir });
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(/is not empty \(3 tickets:live, 2 tickets:test, 1 files/);
    const sql = openTestDatabase(db.url);
    try {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM tickets`;
      expect(row!.n).toBe(5); // three copied, two made on it since
    } finally {
      await sql.end();
    }
  });

  it('refuses a data directory a server is running on', async () => {
    const running = await startServer({ files: true });
    cleanup.push(() => running.close());
    const db = await createTestDatabase();
    cleanup.push(() => dropTestDatabase(db.name));
    const res = await runCli(['migrate', '--to', db.url], { TICKETING_DATA_DIR: running.dataDir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/stop it first/);
  });
  it('keys commands act on the database, and every server on it honours them at once; backup refuses', async () => {
    const server = await startServer();
    cleanup.push(() => server.close());
    const env = { TICKETING_DATA_DIR: '/nonexistent', TICKETING_DATABASE_URL: server.databaseUrl! };
    const created = await runCli(['keys', 'create', '--secret', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const made = JSON.parse(created.stdout) as { key: string; id: string };
    const me = () => server.call('GET', '/me', { key: made.key });
    expect((await me()).status).toBe(200); // no restart, no socket: the server reads keys from the database
    const listed = await runCli(['keys', 'list'], env);
    expect(listed.stdout).toContain(`${made.key.slice(0, 12)}… (secret, stored as a hash)`);
    expect(listed.stdout).not.toContain(made.key);
    const revoked = await runCli(['keys', 'revoke', made.id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toMatch(/Every server on this database refuses it/);
    expect((await me()).body.error.code).toBe('invalid_api_key');
    const audit = (await server.call('GET', '/admin?r=audit')).body.audit.map((e: { action: string }) => e.action);
    expect(audit).toEqual(expect.arrayContaining(['key.created', 'key.revoked']));

    const backup = await runCli(['backup', '/tmp/never-written.tar'], env);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toMatch(/^ticketing backup works on a data directory; .*pg_dump/);
    expect(backup.stderr).not.toContain(new URL(server.databaseUrl!).password);
  });
});
