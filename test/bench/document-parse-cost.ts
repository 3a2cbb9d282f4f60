/**
 * What reading the stored metadata-at-scale document costs a start, in CPU
 * ms without a database (Note [Document stamp] in engine/metadata/store.ts):
 * compiling the stored-document schema's validator (once per process), JSON
 * parsing, validating, normalizing, and the stamp's hash of the text.
 *
 * Run: node test/bench/document-parse-cost.ts [tables=2000] [roles=10] [rounds=3]
 */
import { createHash } from 'node:crypto';
import { DOCUMENT_STAMP_KEY, engineDocumentSchemas } from '../../engine/metadata/document-schemas.ts';
import { normalizeDocument } from '../../engine/model/document.ts';
import { assertValid } from '../../engine/model/schemas/validate.ts';
import { withScaleTables } from './lib/scale.ts';

const [tables = 2000, roles = 10, rounds = 3] = process.argv.slice(2).map(Number);
const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const base = {
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables: [], configuration: { connection_info: { database_url: 'postgres://h/db' } } }],
};
const text = JSON.stringify(withScaleTables(base, tables, roles));
console.log(`document: ${(text.length / 1024 / 1024).toFixed(1)} MiB (${tables} tables × ${roles} roles)`);
let t = cpu();
assertValid(engineDocumentSchemas.stored, { version: 3, sources: [] }, '$');
console.log(`validator compile (with a tiny document): ${(cpu() - t).toFixed(0)} ms`);
for (let k = 0; k < rounds; k++) {
  t = cpu();
  const raw = JSON.parse(text) as Record<string, unknown>;
  const parse = cpu() - t;
  t = cpu();
  const valid = assertValid<Record<string, unknown>>(engineDocumentSchemas.stored, raw, '$');
  const validate = cpu() - t;
  t = cpu();
  normalizeDocument(valid);
  const normalize = cpu() - t;
  t = cpu();
  createHash('sha256').update(DOCUMENT_STAMP_KEY).update('\n').update(text).digest('hex');
  const stamp = cpu() - t;
  console.log(
    `round ${k + 1}: JSON.parse ${parse.toFixed(0)} ms, validate ${validate.toFixed(0)} ms, normalize ${normalize.toFixed(0)} ms, stamp hash ${stamp.toFixed(1)} ms`,
  );
}
