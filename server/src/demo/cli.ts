#!/usr/bin/env node
// `pnpm demo:tickets | demo:reply <id> "text" | demo:close <id>`: support's side of the demo, over the
// API of the running demo server with the demo's secret key (never in a page).
import { resolve } from 'node:path';
import { readDemoKeys } from './keys-file.js';

const dataDir = resolve(process.env.TICKETING_DATA_DIR ?? './demo-data');

async function main() {
  const [command, id, ...words] = process.argv.slice(2);
  const keys = readDemoKeys(dataDir);
  if (!keys) throw new Error(`No demo found in ${dataDir}. Start it first with: pnpm demo`);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${keys.url}/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${keys.secretKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).catch(() => {
      throw new Error(`The demo server at ${keys.url} does not answer. Is pnpm demo running?`);
    });
    const data = (await res.json()) as { error?: { message: string } } & Record<string, unknown>;
    if (!res.ok) throw new Error(data.error?.message ?? `HTTP ${res.status}`);
    return data;
  };
  if (command === 'tickets') {
    const { data } = (await call('GET', '/list?limit=20')) as unknown as {
      data: { id: string; status: string; subject: string; name: string; reply_count: number }[];
    };
    if (!data.length) console.log('No tickets yet. File one with the widget at', `${keys.url}/`);
    for (const t of data)
      console.log(`${t.id}  ${t.status.padEnd(9)} ${t.reply_count} replies  ${t.subject}  (${t.name})`);
  } else if (command === 'reply' && id && words.length) {
    await call('POST', '/reply', { ticket_id: id, message: words.join(' '), author: 'Demo Support' });
    console.log(`Replied to ${id}. The open widget shows it within about 10 seconds.`);
  } else if (command === 'close' && id) {
    const meta = (await call('GET', '/meta')) as unknown as { statuses: { id: string; closed: boolean }[] };
    const closed = meta.statuses.find((s) => s.closed)!.id;
    await call('POST', '/status', { ticket_id: id, status: closed });
    console.log(`Closed ${id}. The customer can now rate it in the widget.`);
  } else {
    console.log('Usage: pnpm demo:tickets | pnpm demo:reply <ticket id> "text" | pnpm demo:close <ticket id>');
    process.exitCode = 2;
  }
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exitCode = 1;
});
