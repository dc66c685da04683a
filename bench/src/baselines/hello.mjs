// Baseline 1: the least a Node HTTP server can do per request.
import { createServer } from 'node:http';

const body = JSON.stringify({ hello: 'world' });
createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
