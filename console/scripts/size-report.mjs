// Prints raw, gzip and brotli sizes of every file of the built console and fails the build when what an
// agent loads to work (index.html and the scripts and stylesheets it names) is over 60 KB gzip, or the
// whole console with every lazily loaded chunk (settings screens, reports, passkeys, the Markdown parser)
// over 160 KB gzip. (120 KB until a CommonMark parser, markdown-it: 40.5 KB, loaded with the first
// Markdown shown, replaced the hand-written subset that corrupted text; 150 KB until the team's
// features (collision guard, snooze, own profile, invitation and reset pages, thread pages, search)
// added 2 KB beyond it. What an agent waits for is the first-load budget, which did not move.)
import { readFileSync, readdirSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url);
const FIRST_LOAD_BUDGET = 60 * 1024;
// 163, not 160 (issue 30): the assignment and reply-status settings screen (a lazily loaded chunk of
// 1.8 KB, mostly its English and German text) had no room left under 160 (159.23 before it).
const WHOLE_BUDGET = 163 * 1024;

const measure = (path) => {
  const data = readFileSync(new URL(path, dist));
  return {
    path,
    raw: data.length,
    gzip: gzipSync(data, { level: 9 }).length,
    brotli: brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const kb = (n) => `${(n / 1024).toFixed(2)} KB`;

const files = [
  measure('index.html'),
  ...readdirSync(new URL('assets/', dist))
    .filter((f) => /\.(js|css)$/.test(f))
    .sort()
    .map((f) => measure(`assets/${f}`)),
];
const total = files.reduce((a, f) => ({ raw: a.raw + f.raw, gzip: a.gzip + f.gzip, brotli: a.brotli + f.brotli }), {
  raw: 0,
  gzip: 0,
  brotli: 0,
});

console.log('file'.padEnd(40), 'raw'.padStart(10), 'gzip'.padStart(10), 'brotli'.padStart(10));
for (const r of [...files, { path: 'console total', ...total }])
  console.log(r.path.padEnd(40), kb(r.raw).padStart(10), kb(r.gzip).padStart(10), kb(r.brotli).padStart(10));
// What the first visit fetches: index.html and every asset it names (entry script, preloads, styles).
const html = readFileSync(new URL('index.html', dist), 'utf8');
const named = new Set([...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((m) => m[1]));
const first = files.filter((f) => f.path === 'index.html' || named.has(f.path)).reduce((a, f) => a + f.gzip, 0);
console.log(`budget: first load ${kb(first)} / ${kb(FIRST_LOAD_BUDGET)} (gzip)`);
console.log(`budget: the whole console ${kb(total.gzip)} / ${kb(WHOLE_BUDGET)} (gzip)`);
if (first > FIRST_LOAD_BUDGET || total.gzip > WHOLE_BUDGET) {
  console.error(`Over budget: first load ${kb(first)}, whole console ${kb(total.gzip)} gzip`);
  process.exit(1);
}
