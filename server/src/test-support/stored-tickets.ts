import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What a restart would find on disk for one mode, read independently of the store: the ticket
 * files, with the journal files (oldest first) applied over them. Id -> the ticket's JSON text.
 * Tests use it to check that a refused request stored nothing, whether or not a checkpoint ran.
 */
export async function storedTickets(dataDir: string, mode: 'live' | 'test' = 'live'): Promise<Map<string, string>> {
  const root = join(dataDir, mode);
  const stored = new Map<string, string>();
  for (const name of await readdir(join(root, 'tickets')))
    if (name.endsWith('.json')) stored.set(name.slice(0, -5), await readFile(join(root, 'tickets', name), 'utf8'));
  const journals = (await readdir(root)).filter((n) => /^journal-\d+\.jsonl$/.test(n)).sort();
  for (const name of journals)
    for (const line of (await readFile(join(root, name), 'utf8')).split('\n')) {
      if (!line) continue;
      const record = JSON.parse(line) as { ticket?: { id: string }; removed?: string };
      if (record.ticket) stored.set(record.ticket.id, JSON.stringify(record.ticket));
      else if (record.removed) stored.delete(record.removed);
    }
  return stored;
}
