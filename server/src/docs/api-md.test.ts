import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../app.js';

/** The endpoint names of the route table: `create`, `openapi.json`, … */
const ENDPOINTS = new Set(ROUTES.map((r) => r.path.slice(1)));

// docs/api.md is the project's API reference; these checks keep it true to the server.
const SRC = fileURLToPath(new URL('..', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const API_MD = readFileSync(fileURLToPath(new URL('../../../docs/api.md', import.meta.url)), 'utf8');

/** The document without its "## Planned: …" sections, which describe what is not served yet. */
const served = API_MD.split(/^(?=## )/m)
  .filter((section) => !section.startsWith('## Planned'))
  .join('');

// Sections about one endpoint: a bullet "- **/name**" or a heading "## /name" (names may nest: /session/password).
const sections = [...served.matchAll(/^(?:- \*\*|## )\/([a-z][a-z0-9./-]*[a-z0-9])/gm)].map((m) => m[1]!);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test-support' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every (status, code) the server's code can answer with, found where errors are made. */
function answeredCodes(): { status: number; code: string; where: string }[] {
  const found: { status: number; code: string; where: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const where = relative(SRC, file);
    for (const m of text.matchAll(/new ApiError\(\s*(\d{3}),\s*'([a-z_]+)'/g))
      found.push({ status: Number(m[1]), code: m[2]!, where });
    for (const m of text.matchAll(/\bnotFound\('([a-z]+)'/g))
      found.push({ status: 404, code: `${m[1]}_not_found`, where });
    // Answers written by hand outside the error renderer (health checks run before it).
    for (const m of text.matchAll(/ctx\.status = (\d{3});[^]{0,200}?error: \{ code: '([a-z_]+)'/g))
      found.push({ status: Number(m[1]), code: m[2]!, where });
  }
  // The fuzz test's table of what it accepts as documented.
  const fuzz = readFileSync(join(SRC, 'reliability', 'fuzz.long.test.ts'), 'utf8');
  const table = /const DOCUMENTED[^=]*= \{([^]*?)\n\};/.exec(fuzz)![1]!;
  for (const row of table.matchAll(/(\d{3}): \[([^\]]*)\]/g))
    for (const code of row[2]!.matchAll(/'([a-z_]+)'/g))
      found.push({ status: Number(row[1]), code: code[1]!, where: 'fuzz DOCUMENTED' });
  return found;
}

/** The error table of docs/api.md: status -> codes. */
function documentedCodes(): Map<number, Set<string>> {
  const errors = /^## Errors\n([^]*?)^## /m.exec(API_MD)![1]!;
  const table = new Map<number, Set<string>>();
  for (const row of errors.matchAll(/^\| (\d{3}) +\| ([^|]+)\|/gm)) {
    const codes = table.get(Number(row[1])) ?? new Set<string>();
    for (const c of row[2]!.matchAll(/`([a-z_]+)`/g)) codes.add(c[1]!);
    table.set(Number(row[1]), codes);
  }
  return table;
}

describe('docs/api.md', () => {
  it('has a section for every endpoint the server registers', () => {
    const missing = [...ENDPOINTS].filter((name) => !sections.includes(name));
    expect(missing).toEqual([]);
  });

  it('names no endpoint the server does not have', () => {
    const named = new Set([
      ...sections,
      ...[...served.matchAll(/\/v1\/([a-z][a-z0-9./-]*[a-z0-9])/g)].map((m) => m[1]!),
    ]);
    expect(named.size).toBeGreaterThan(15);
    expect([...named].filter((name) => !ENDPOINTS.has(name))).toEqual([]);
  });

  it('lists every error code the server can answer, under its status', () => {
    const table = documentedCodes();
    const answered = answeredCodes();
    expect(answered.length).toBeGreaterThan(40); // the scan finds the errors where they are made
    const missing = answered
      .filter(({ status, code }) => !table.get(status)?.has(code))
      .map(({ status, code, where }) => `${status} ${code} (${where})`);
    expect([...new Set(missing)]).toEqual([]);
  });
});

describe('the project docs', () => {
  it('link only to files inside the repository, and every such file exists', () => {
    const docs = ['README.md', 'SECURITY.md', 'BENCHMARKS.md', 'demo-site/README.md', 'docs/api.md', 'docs/deploy.md'];
    let links = 0;
    for (const doc of docs) {
      const text = readFileSync(join(REPO, doc), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (/^(https?:|mailto:)/.test(target) || !target) continue;
        links++;
        const path = resolve(dirname(join(REPO, doc)), target);
        expect(relative(REPO, path).startsWith('..'), `${doc} -> ${target}`).toBe(false);
        expect(existsSync(path), `${doc} -> ${target}`).toBe(true);
      }
    }
    expect(links).toBeGreaterThanOrEqual(5);
  });
});
