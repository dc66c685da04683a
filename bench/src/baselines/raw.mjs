// Baseline 1: the least a Node HTTP server can do per request: the same JSON bodies Ticketing answers
// GET /ticket with, serialised once at start and looked up by the id in the query string. No
// authentication, no routing, no logging.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const views = JSON.parse(readFileSync(process.env.VIEWS, 'utf8'));
const bodies = { sk: new Map(), pk: new Map() };
for (const mode of ['sk', 'pk'])
  for (const [id, view] of Object.entries(views[mode])) bodies[mode].set(id, JSON.stringify(view));

createServer((req, res) => {
  req.resume();
  const id = /[?&]id=([^&]+)/.exec(req.url)?.[1];
  const body = (req.url.includes('email=') ? bodies.pk : bodies.sk).get(id) ?? '{}';
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
