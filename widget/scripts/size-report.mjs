// Prints raw, gzip and brotli sizes of what a page loads, and fails the build when over budget:
// widget.js (before anyone clicks) at most 3 KB gzip; everything the open panel needs at most 20 KB.
import { readFileSync, readdirSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url);
const BUDGET = { loader: 3 * 1024, panel: 20 * 1024 };

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

const loader = measure('widget.js');
const panel = readdirSync(new URL('widget/', dist))
  .filter((f) => f.endsWith('.js'))
  .map((f) => measure(`widget/${f}`));
const total = panel.reduce((a, f) => ({ raw: a.raw + f.raw, gzip: a.gzip + f.gzip, brotli: a.brotli + f.brotli }), {
  raw: 0,
  gzip: 0,
  brotli: 0,
});

const rows = [loader, ...panel, { path: 'panel total', ...total }];
console.log('file'.padEnd(34), 'raw'.padStart(10), 'gzip'.padStart(10), 'brotli'.padStart(10));
for (const r of rows)
  console.log(r.path.padEnd(34), kb(r.raw).padStart(10), kb(r.gzip).padStart(10), kb(r.brotli).padStart(10));

const over = [];
if (loader.gzip > BUDGET.loader) over.push(`widget.js is ${kb(loader.gzip)} gzip, budget ${kb(BUDGET.loader)}`);
if (total.gzip > BUDGET.panel) over.push(`the panel is ${kb(total.gzip)} gzip, budget ${kb(BUDGET.panel)}`);
console.log(
  `budgets: widget.js ${kb(loader.gzip)} / ${kb(BUDGET.loader)}, panel ${kb(total.gzip)} / ${kb(BUDGET.panel)} (gzip)`,
);
if (over.length) {
  console.error(`Over budget:\n  ${over.join('\n  ')}`);
  process.exit(1);
}
