/**
 * Where a V8 sampling heap profile's bytes were allocated, grouped by site:
 * the allocating frame (function, file:line) and the first frame in the
 * engine's own code (`engine/`) on its stack, so bytes that graphql-js or a
 * builtin allocated count for the engine line that asked for them. Given a
 * second profile, subtracts it per site. Made for Note [What the builds
 * promote] (engine/graphql/schema/schema-cache.ts): a profile taken with
 * `includeObjectsCollectedByMajorGC` (every sampled object that survived a
 * young collection, dead or alive) minus one without it (what stayed live
 * after a full collection) is the garbage the builds promoted to the old
 * generation. Profiles come from `schema-memory.ts --heap-prof`.
 *
 * Run: node test/bench/alloc-sites.ts <a.heapprofile> [<b.heapprofile>] [--top N]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

const argv = process.argv.slice(2);
const topAt = argv.indexOf('--top');
const TOP = topAt >= 0 ? Number(argv[topAt + 1]) : 40;
const files = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--top');

const site = (f: CallFrame): string => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*?\/(engine|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
const own = (f: CallFrame): boolean => /\/engine\//.test(f.url) && !f.url.includes('node_modules');

/** Bytes by allocating site and by first engine frame. */
function sites(file: string): { readonly top: Map<string, number>; readonly engine: Map<string, number>; readonly total: number } {
  const root = (JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode }).head;
  const top = new Map<string, number>();
  const engine = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode, lastOwn: string): void => {
    const here = own(n.callFrame) ? site(n.callFrame) : lastOwn;
    if (n.selfSize > 0) {
      total += n.selfSize;
      const s = site(n.callFrame);
      top.set(s, (top.get(s) ?? 0) + n.selfSize);
      engine.set(here, (engine.get(here) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, here);
  };
  walk(root, '(outside the engine)');
  return { top, engine, total };
}

const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);

function print(title: string, a: Map<string, number>, b: Map<string, number> | undefined): void {
  const keys = new Set([...a.keys(), ...(b?.keys() ?? [])]);
  const rows = [...keys].map((k) => [k, (a.get(k) ?? 0) - (b?.get(k) ?? 0)] as const).sort((x, y) => y[1] - x[1]);
  console.log(`\n## ${title}\n| MiB | site |\n|---:|---|`);
  for (const [k, v] of rows.slice(0, TOP)) console.log(`| ${mib(v)} | ${k} |`);
}

const [aFile, bFile] = files;
if (aFile === undefined) throw new Error('usage: alloc-sites.ts <a.heapprofile> [<b.heapprofile>] [--top N]');
const a = sites(aFile);
const b = bFile === undefined ? undefined : sites(bFile);
console.log(`total ${mib(a.total)} MiB${b === undefined ? '' : ` − ${mib(b.total)} MiB = ${mib(a.total - b.total)} MiB`}`);
print('by allocating frame', a.top, b?.top);
print('by first engine frame', a.engine, b?.engine);
