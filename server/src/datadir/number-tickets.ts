import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFilesDurable } from '../store/durable-write.js';
import { FileTicketStore } from '../store/file-ticket-store.js';
import { FIRST_NUMBER, type KeyMode, withNumber } from '../store/ticket-store.js';

/** Tickets read and rewritten at a time, so a large directory is never held in memory whole. */
const CHUNK = 500;

/**
 * Gives every ticket of one mode its number, oldest first (by created_at, then id, the order of
 * /list's sort=created), from FIRST_NUMBER: data format 1 -> 2. The numbers follow from the order
 * alone, so a run that a crash cut short gives the same numbers when it runs again.
 */
export async function numberTickets(dataDir: string, mode: KeyMode) {
  const dir = join(dataDir, mode, 'tickets');
  if (!existsSync(dir)) return;
  await FileTicketStore.settle(dataDir, mode); // what a crash left in the journal first becomes files
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  const order: { name: string; created_at: string; id: string }[] = [];
  for (const name of names) {
    const t = parse(await readFile(join(dir, name), 'utf8'), name);
    order.push({ name, created_at: t.created_at, id: t.id });
  }
  order.sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  for (let i = 0; i < order.length; i += CHUNK) {
    const writes: { path: string; data: string }[] = [];
    for (const [j, { name }] of order.slice(i, i + CHUNK).entries()) {
      const path = join(dir, name);
      const t = parse(await readFile(path, 'utf8'), name);
      const number = FIRST_NUMBER + i + j;
      if (t.number === number) continue;
      writes.push({ path, data: JSON.stringify(withNumber(t, number)) });
    }
    if (writes.length) await writeFilesDurable(dir, writes);
  }
}

function parse(text: string, name: string): { id: string; created_at: string; number?: number } {
  let t: { id?: unknown; created_at?: unknown; number?: number };
  try {
    t = JSON.parse(text) as typeof t;
  } catch {
    throw new Error(`the ticket file ${name} is not valid JSON`);
  }
  if (typeof t.id !== 'string' || typeof t.created_at !== 'string')
    throw new Error(`the ticket file ${name} is not a ticket`);
  return t as { id: string; created_at: string; number?: number };
}
