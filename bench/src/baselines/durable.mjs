// Baseline 3: a bare server that makes one durable file write per request, as Ticketing's /create must:
// temp file, fsync, rename, fsync of the directory. No parsing, no validation, no index.
import { createServer } from 'node:http';
import { open, rename } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

const dir = process.env.DIR;
createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const name = randomBytes(12).toString('hex');
  const temp = join(dir, `${name}.tmp`);
  const file = await open(temp, 'w');
  await file.writeFile(Buffer.concat(chunks));
  await file.sync();
  await file.close();
  await rename(temp, join(dir, `${name}.json`));
  const d = await open(dir, 'r');
  await d.sync();
  await d.close();
  res.writeHead(201, { 'Content-Type': 'application/json' });
  res.end('{"ok":true}');
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
