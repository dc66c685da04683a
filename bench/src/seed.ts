import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomToken } from '../../server/src/model/ids.js';

const STATUSES = ['open', 'pending', 'answered', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const START = Date.parse('2025-01-01T00:00:00Z');

export interface Seeded {
  id: string;
  email: string;
}

/**
 * Writes tickets `from` .. `from + count - 1` in the server's real file format (one JSON file each)
 * straight into a data directory: seeding 100k tickets through the API would take minutes of fsyncs.
 * No fsync either: the benchmark syncs once after seeding.
 */
export function seed(dataDir: string, count: number, from = 0): Seeded[] {
  const dir = join(dataDir, 'live', 'tickets');
  mkdirSync(dir, { recursive: true });
  const seeded: Seeded[] = [];
  for (let i = from; i < from + count; i++) {
    const id = `tkt_${randomToken(20)}`;
    const created = new Date(START + i * 60_000).toISOString();
    const status = STATUSES[i % 4]!;
    const email = `customer${i % 5000}@example.com`;
    const replies = Array.from({ length: i % 4 }, (_, r) => ({
      id: `rpl_${randomToken(20)}`,
      message: `Reply ${r} to ticket ${i}: thank you for waiting, we are looking into it.`,
      from_customer: r % 2 === 1,
      author: r % 2 ? null : 'Grace',
      created_at: new Date(START + i * 60_000 + (r + 1) * 3_600_000).toISOString(),
      attachments: [],
    }));
    const ticket = {
      id,
      number: 1001 + i,
      subject: `Order ${10_000 + i}: question about delivery`,
      message: `Hello, I ordered a teapot (order ${10_000 + i}) and would like to know when it arrives. `.repeat(3),
      name: `Customer ${i}`,
      email,
      status,
      priority: PRIORITIES[i % 4],
      category: null,
      fields: {},
      page_url: 'https://shop.example/cart',
      agent_id: null,
      tags: [],
      close_request: null,
      rating: null,
      replies,
      attachments: [],
      due_at: null,
      closed_at: status === 'closed' ? created : null,
      created_at: created,
      updated_at: created,
    };
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(ticket));
    seeded.push({ id, email });
  }
  return seeded;
}

/** The same, split over one child process per core: for a million files, creating them is the cost. */
export async function seedParallel(dataDir: string, count: number, processes: number): Promise<void> {
  const per = Math.ceil(count / processes);
  await Promise.all(
    Array.from(
      { length: processes },
      (_, p) =>
        new Promise<void>((ok, fail) => {
          const args = ['--import', 'tsx', fileURLToPath(import.meta.url), dataDir, String(p * per)];
          const child = spawn(process.execPath, [...args, String(Math.min(per, count - p * per))], {
            cwd: join(dirname(fileURLToPath(import.meta.url)), '..'),
            stdio: 'inherit',
          });
          child.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`seeding exited with ${code}`))));
        }),
    ),
  );
}

/**
 * An audit log of about `bytes`, in the format the server appends (one JSON entry a line), so the
 * benchmark can show what a grown log costs at start-up and per write.
 */
export function seedAuditLog(dataDir: string, bytes: number) {
  const fd = openSync(join(dataDir, 'audit.jsonl'), 'w', 0o600);
  try {
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++)
      lines.push(
        JSON.stringify({
          id: `aud_${randomToken(20)}`,
          at: new Date(START + i * 1000).toISOString(),
          actor: { kind: 'secret', prefix: 'sk_live_SSSS' },
          action: 'ticket.created',
          target: `tkt_${randomToken(20)}`,
          details: {},
        }),
      );
    const chunk = Buffer.from(`${lines.join('\n')}\n`);
    for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** `count` pending mail jobs in data/outbox, due in a day (so none is sent while the benchmark runs). */
export function seedOutbox(dataDir: string, count: number) {
  const dir = join(dataDir, 'outbox');
  mkdirSync(dir, { recursive: true });
  const due = new Date(Date.now() + 86_400_000).toISOString();
  for (let i = 0; i < count; i++) {
    const id = `evt_${randomToken(20)}`;
    const job = {
      id,
      kind: 'mail',
      payload: { to: `customer${i}@example.com`, subject: `Re: Order ${i}`, text: 'Thank you, we are on it.' },
      attempts: 1,
      created_at: new Date(START).toISOString(),
      next_attempt_at: due,
      last_error: 'connect ECONNREFUSED 127.0.0.1:25',
    };
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(job));
  }
}

// As a child of seedParallel: <dataDir> <from> <count>.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dataDir, from, count] = process.argv.slice(2);
  seed(dataDir!, Number(count), Number(from));
}
