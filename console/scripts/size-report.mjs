// Prints raw, gzip and brotli sizes of every file of the built console and fails the build when the
// whole console (every script and stylesheet, lazily loaded chunks included) is over 60 KB gzip.
import { readFileSync, readdirSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url);
const BUDGET = 60 * 1024;

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
console.log(`budget: the console ${kb(total.gzip)} / ${kb(BUDGET)} (gzip)`);
if (total.gzip > BUDGET) {
  console.error(`Over budget: the console is ${kb(total.gzip)} gzip, budget ${kb(BUDGET)}`);
  process.exit(1);
}
