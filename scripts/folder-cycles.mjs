// Fails when a folder imports a folder that imports it back, directly or through others (the house
// rule "no folder cycles"). dependency-cruiser reads the imports (type-only ones too: they couple
// folders as much as the others); this script groups modules by folder and looks for cycles between
// folders. dependency-cruiser's own folder-scoped `circular` rule is not used because it never counts
// a folder's parent as part of a cycle: `server/src/deps.ts` importing `automation/` while `automation/`
// imports `../deps.ts` passed it. Here the files at the top of a src/ folder (entry points and wiring:
// app.ts, boot.ts, deps.ts, the widget's types.ts) each count as a folder of their own, so such a loop
// is caught, while `cli/` importing `version.ts` and `boot.ts` importing `cli/` is no loop.
//
// Test files are left out: a test sits in the folder it tests but is nobody's dependency, so its
// imports (of test-support/, which starts the whole server) close no loop that production code has.
//
// Usage: node scripts/folder-cycles.mjs [dir ...]   (default: the three packages' src/ folders)
import { cruise } from 'dependency-cruiser';
import { dirname } from 'node:path';

const roots = (
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['server/src', 'console/src', 'widget/src']
).map((root) => root.replace(/\/+$/, ''));

const { output } = await cruise(roots, {
  tsPreCompilationDeps: true,
  exclude: { path: '\\.test\\.tsx?$' },
  doNotFollow: { path: 'node_modules' },
});
if (typeof output === 'string') throw new Error('dependency-cruiser returned text, not a result');

const inRoots = (path) => roots.some((root) => path.startsWith(`${root}/`));
/** The folder a module counts in: its own folder, or itself for a file at the top of a root. */
const folderOf = (path) => (roots.includes(dirname(path)) ? path : dirname(path));

/** folder → folder it imports → one import that shows it ("from.ts → to.ts"). */
const edges = new Map();
for (const module of output.modules) {
  if (!inRoots(module.source)) continue;
  const from = folderOf(module.source);
  for (const dependency of module.dependencies) {
    if (dependency.coreModule || dependency.couldNotResolve || !inRoots(dependency.resolved)) continue;
    const to = folderOf(dependency.resolved);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const targets = edges.get(from);
    if (!targets.has(to)) targets.set(to, `${module.source} → ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components: every component of more than one folder is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
let counter = 0;
const visit = (folder) => {
  index.set(folder, counter);
  low.set(folder, counter);
  counter += 1;
  stack.push(folder);
  onStack.add(folder);
  for (const next of edges.get(folder)?.keys() ?? []) {
    if (!index.has(next)) {
      visit(next);
      low.set(folder, Math.min(low.get(folder), low.get(next)));
    } else if (onStack.has(next)) {
      low.set(folder, Math.min(low.get(folder), index.get(next)));
    }
  }
  if (low.get(folder) === index.get(folder)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) components.push(component.sort());
  }
};
for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);

if (components.length === 0) {
  console.log(`folder-cycles: none (${output.summary.totalCruised} modules in ${roots.join(', ')})`);
} else {
  for (const component of components) {
    const members = new Set(component);
    console.error(`folder cycle: ${component.join(', ')}`);
    for (const from of component) {
      for (const [to, example] of edges.get(from) ?? []) {
        if (members.has(to)) console.error(`  ${from} → ${to}  (${example})`);
      }
    }
  }
  process.exitCode = 1;
}
