// Prints raw, gzip and brotli sizes of what a page loads, and fails the build when over budget:
// widget.js (before anyone clicks) at most 3 KB gzip; everything the open panel needs at most 20 KB.
// The panel is its entry, what the entry imports, and one locale table (each locale is a file of its
// own, loaded on demand; the largest counts). Views few customers see are files of their own too
// (components/lazy.ts), listed apart. `--json` prints the figures for the benchmark instead.
import { readFileSync } from 'node:fs';
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
const sum = (list) =>
  list.reduce((a, f) => ({ raw: a.raw + f.raw, gzip: a.gzip + f.gzip, brotli: a.brotli + f.brotli }), {
    raw: 0,
    gzip: 0,
    brotli: 0,
  });

const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));
const entryKey = 'src/panel/panel.tsx';
// The entry and its static imports, transitively: what always loads with the panel.
const always = new Set();
const walk = (key) => {
  if (always.has(key)) return;
  always.add(key);
  for (const k of manifest[key].imports ?? []) walk(k);
};
walk(entryKey);
const locales = Object.keys(manifest)
  .filter((k) => /\/i18n\/[\w-]+\.ts$/.test(k))
  .map((k) => ({ ...measure(manifest[k].file), locale: manifest[k].name }));
// Views loaded on demand (the rating, files, an article, Turnstile, Markdown): listed, not counted.
const onDemand = Object.keys(manifest)
  .filter((k) => !always.has(k) && !/\/i18n\/[\w-]+\.ts$/.test(k) && manifest[k].file.endsWith('.js'))
  .map((k) => ({ ...measure(manifest[k].file), path: `${manifest[k].file} (on demand)` }));
const largest = locales.reduce((a, b) => (b.gzip > a.gzip ? b : a));

const loader = measure('widget.js');
const base = [...always].map((k) => measure(manifest[k].file));
const total = sum([...base, largest]);

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ loader, panel: total, largestLocale: largest.locale }));
  process.exit(0);
}

const rows = [
  loader,
  ...base,
  ...locales.map((l) => ({ ...l, path: `${l.path} (${l.locale})` })),
  ...onDemand,
  { path: `panel total (with ${largest.locale})`, ...total },
];
console.log('file'.padEnd(38), 'raw'.padStart(10), 'gzip'.padStart(10), 'brotli'.padStart(10));
for (const r of rows)
  console.log(r.path.padEnd(38), kb(r.raw).padStart(10), kb(r.gzip).padStart(10), kb(r.brotli).padStart(10));

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
