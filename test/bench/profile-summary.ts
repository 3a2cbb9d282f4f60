/**
 * `node test/bench/profile-summary.ts <file.cpuprofile> [top] [--under=<function>]`:
 * self and inclusive time per function of a V8 CPU profile (from
 * `--cpu-prof`), to see what is on the request path; with --under, only the
 * samples under a function of that name (percentages still of the whole).
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const file = positional[0];
const top = Number(positional[1] ?? '40');
const under = process.argv.find((a) => a.startsWith('--under='))?.slice('--under='.length);
if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const p = JSON.parse(await readFile(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const label = (n: ProfileNode): string => {
  const url = n.callFrame.url.replace(/^file:\/\/\/work\/main\//, '').replace(/^.*node_modules\//, 'nm:');
  return `${n.callFrame.functionName || '(anon)'} ${url}:${n.callFrame.lineNumber + 1}`;
};
const selfBy = new Map<string, number>();
const inclBy = new Map<string, number>();
/** Whether a sample at node `id` is under a function named `under` (always, without --under). */
const isUnder = (id: number): boolean => {
  if (under === undefined) return true;
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) if (byId.get(cur)?.callFrame.functionName === under) return true;
  return false;
};
for (const [id, t] of self) {
  const n = byId.get(id);
  if (n === undefined || !isUnder(id)) continue;
  selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + t);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const c = byId.get(cur);
    if (c === undefined) break;
    const l = label(c);
    if (seen.has(l)) continue;
    seen.add(l);
    inclBy.set(l, (inclBy.get(l) ?? 0) + t);
  }
}
const pct = (t: number): string => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
process.stdout.write(`total ${(total / 1e6).toFixed(1)} s\n\nself:\n`);
for (const [l, t] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(t)}  ${l}\n`);
process.stdout.write('\ninclusive:\n');
for (const [l, t] of [...inclBy].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(t)}  ${l}\n`);
