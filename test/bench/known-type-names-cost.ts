/**
 * What graphql-js's KnownTypeNamesRule costs a document's validation against
 * a schema of many types, beside the engine's lookup rule (Note [Known type
 * names without a list] in engine/execute/validate.ts): CPU ms per validation
 * of one small query, rules alternated.
 *
 * Run: NODE_ENV=production node test/bench/known-type-names-cost.ts [types=84000]
 */
import { buildSchema, KnownTypeNamesRule, parse, validate } from 'graphql';
import { KnownTypeNamesLookupRule } from '../../engine/execute/validate.ts';

const TYPES = Number(process.argv[2] ?? 84000);
const sdl = ['type Query { t0: T0 }', ...Array.from({ length: TYPES }, (_, i) => `type T${i} { a: Int${i + 1 < TYPES ? `, n: T${i + 1}` : ''} }`)].join('\n');
const schema = buildSchema(sdl, { assumeValid: true });
const doc = parse('query Q($a: Int) { t0 { a } }');
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (let round = 1; round <= 3; round++) {
  for (const [label, rule] of [
    ['graphql-js KnownTypeNamesRule', KnownTypeNamesRule],
    ['KnownTypeNamesLookupRule', KnownTypeNamesLookupRule],
  ] as const) {
    const t = cpuMs();
    for (let i = 0; i < 50; i++) validate(schema, doc, [rule]);
    console.log(`round ${round}: ${label} ${((cpuMs() - t) / 50).toFixed(3)} ms per validation (${TYPES} types)`);
  }
}
