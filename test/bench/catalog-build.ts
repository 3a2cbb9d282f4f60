/**
 * What a catalog build costs without a database: the synthetic source of
 * test/support/synthetic-source.ts (N chained tables, R roles with select
 * permissions shaped like lib/scale.ts's), built from scratch `builds` times,
 * then rebuilt after one table's permission changed each time (the previous
 * catalog given: Note [Catalog memo] in engine/catalog/memo.ts), and after a
 * whole document was read again with one change (Note [Documents read whole]
 * in engine/metadata/edit.ts). CPU ms per build, median of the builds.
 *
 * Run: node test/bench/catalog-build.ts [tables=2000] [roles=10] [builds=8]
 */
import { buildCatalog } from '../../engine/catalog/build.ts';
import type { Catalog } from '../../engine/catalog/types.ts';
import { keepEqualEntries, updateTable } from '../../engine/metadata/edit.ts';
import type { JsonObject, MetadataDocument, TableMetadata } from '../../engine/model/document.ts';
import { fixture } from '../support/synthetic-source.ts';

const [TABLES, ROLES, BUILDS] = [2000, 10, 8].map((d, i) => Number(process.argv[2 + i] ?? d)) as [number, number, number];

const { doc: base, prepared } = fixture(TABLES);
const source = base.sources[0];
if (source === undefined) throw new Error('no source');
const permissions = (r0: number): TableMetadata['select_permissions'] =>
  Array.from({ length: ROLES }, (_, r) => ({
    role: `role_${r + 1}`,
    permission: {
      columns: (r + r0) % 2 === 0 ? '*' : ['id', 'a', 'b'],
      filter: r % 3 === 0 ? ({} as JsonObject) : { a: { _eq: 'X-Engine-User-Id' } },
      ...((r + r0) % 2 === 0 ? { allow_aggregations: true } : { limit: 100 }),
    },
  }));
const doc: MetadataDocument = { ...base, sources: [{ ...source, tables: source.tables.map((t) => ({ ...t, select_permissions: permissions(0) })) }] };

function cpuMs<T>(fn: () => T): [T, number] {
  const c = process.cpuUsage();
  const out = fn();
  const u = process.cpuUsage(c);
  return [out, (u.user + u.system) / 1000];
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
let version = 0;
const stamp = (): { version: number; resourceVersion: number } => ({ version: ++version, resourceVersion: version });
const changeOne = (d: MetadataDocument, k: number): MetadataDocument =>
  updateTable(d, 'default', { schema: 'public', name: `t${(k * 997) % TABLES}` }, (t) => ({ ...t, select_permissions: permissions(k + 1) }));

const full: number[] = [];
let previous: Catalog | undefined;
for (let k = 0; k < BUILDS; k++) {
  const [c, ms] = cpuMs(() => buildCatalog(doc, prepared, stamp()));
  if (c.inconsistencies.length > 0) throw new Error(`inconsistent: ${c.inconsistencies[0]?.reason ?? ''}`);
  full.push(ms);
  previous = c;
}
const one: number[] = [];
let current = doc;
for (let k = 0; k < BUILDS; k++) {
  current = changeOne(current, k);
  const [c, ms] = cpuMs(() => buildCatalog(current, prepared, stamp(), undefined, undefined, previous));
  one.push(ms);
  previous = c;
}
const whole: number[] = [];
for (let k = 0; k < BUILDS; k++) {
  const reread = JSON.parse(JSON.stringify(changeOne(current, k + BUILDS))) as MetadataDocument;
  const [[c, kept], ms] = cpuMs(() => {
    const d = keepEqualEntries(current, reread);
    return [buildCatalog(d, prepared, stamp(), undefined, undefined, previous), d] as const;
  });
  whole.push(ms);
  previous = c;
  current = kept;
}
console.log(`${TABLES} tables × ${ROLES} roles, CPU ms per build (median of ${BUILDS}):`);
console.log(`  from scratch:                          ${median(full).toFixed(1)}  [${full.map((x) => x.toFixed(0)).join(', ')}]`);
console.log(`  one table's permissions changed:       ${median(one).toFixed(1)}  [${one.map((x) => x.toFixed(0)).join(', ')}]`);
console.log(`  whole document read again, one change: ${median(whole).toFixed(1)}  [${whole.map((x) => x.toFixed(0)).join(', ')}]`);
