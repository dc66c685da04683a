import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChild } from '../test-support/child-server.js';
import { makeKeys } from '../test-support/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'ticketing-slow-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('slow clients', () => {
  it('keep a normal client fast while 200 slowloris connections and a 1 byte/s body hang on, and are cut off', async () => {
    const keys = makeKeys();
    const child = await startChild({
      TICKETING_DATA_DIR: dataDir,
      TICKETING_KEYS: Object.values(keys).join(','),
      TICKETING_RATE_LIMIT: 'off',
      TICKETING_LOG_LEVEL: 'warn',
    });
    const { hostname, port } = new URL(child.url);
    const sockets: Socket[] = [];
    const closed = new Set<Socket>();
    let lastClosed!: () => void;
    const allClosed = new Promise<void>((ok) => (lastClosed = ok));
    const timers: NodeJS.Timeout[] = [];
    try {
      const opened = Date.now();
      // 200 connections that send their headers one byte a second and never finish.
      for (let i = 0; i < 200; i++) {
        const socket = connect(Number(port), hostname);
        socket.on('error', () => {});
        socket.on('close', () => {
          closed.add(socket);
          if (closed.size === 200) lastClosed();
        });
        socket.write('GET /v1/meta HTTP/1.1\r\nHost: x\r\n');
        sockets.push(socket);
      }
      const trickle = 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n';
      let at = 0;
      timers.push(
        setInterval(() => {
          for (const s of sockets) if (!closed.has(s)) s.write(trickle[at % trickle.length]!);
          at++;
        }, 1000),
      );
      // One request whose body arrives at 1 byte per second.
      const body = connect(Number(port), hostname);
      body.on('error', () => {});
      body.write(
        `POST /v1/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.pk}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      timers.push(setInterval(() => body.write(' '), 1000));

      // Meanwhile a normal client.
      const latencies: number[] = [];
      const until = Date.now() + 8000;
      while (Date.now() < until) {
        const t0 = performance.now();
        const res = await fetch(`${child.url}/v1/meta`, { headers: { Authorization: `Bearer ${keys.pk}` } });
        await res.text();
        expect(res.status).toBe(200);
        latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.floor(latencies.length * 0.99)]!;
      // After the 10 s headers timeout (enforced every second) the slowloris connections are gone; on a
      // loaded machine give it until 20 s after they were opened.
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([
        allClosed,
        new Promise((r) => (deadline = setTimeout(r, Math.max(0, opened + 20_000 - Date.now())))),
      ]);
      clearTimeout(deadline);
      const closedAfter = (Date.now() - opened) / 1000;
      console.log(
        `slow clients: ${latencies.length} normal requests, p50 ${latencies[latencies.length >> 1]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ${closed.size} of 200 slowloris connections closed by the server, the last ${closedAfter.toFixed(1)} s after opening`,
      );
      expect(p99).toBeLessThan(200);
      expect(closed.size).toBe(200);
      body.destroy();
    } finally {
      timers.forEach(clearInterval);
      sockets.forEach((s) => s.destroy());
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  });
});
