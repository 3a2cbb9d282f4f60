/**
 * Golden SQL: every folder test/golden/passing/<area>/<case>/ holds `query.graphql`,
 * optionally `request.json` ({role?, variables?, stringifyNumericTypes?}), and
 * `expected.postgres.sql`, the statements the engine must generate for the
 * music fixture catalog (a mutation: every statement of its transaction, in order). Any difference fails; run with UPDATE_GOLDEN=1 to
 * rewrite the expected files, then review the diff.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../engine/execute/plan.ts';
import { prepareOperation } from '../../engine/execute/validate.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { toIrOperation } from '../../engine/graphql/to-ir/operation.ts';
import { musicCatalog } from '../support/catalog-fixture.ts';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), 'passing');
const catalog = musicCatalog();
const schemas = new SchemaCache();

interface CaseRequest {
  role?: string;
  variables?: Record<string, unknown>;
  stringifyNumericTypes?: boolean;
}

function generate(dir: string): string {
  const query = readFileSync(path.join(dir, 'query.graphql'), 'utf8');
  const reqFile = path.join(dir, 'request.json');
  const req: CaseRequest = existsSync(reqFile) ? (JSON.parse(readFileSync(reqFile, 'utf8')) as CaseRequest) : {};
  const role = req.role ?? 'admin';
  const { schema, access } = schemas.get(catalog, role, role === 'admin');
  const { document, operation } = prepareOperation(schema, query, null);
  const op = toIrOperation({ schema, access, document, operation, variables: req.variables ?? {}, stringifyNumericTypes: req.stringifyNumericTypes ?? false });
  const plan = buildPlan(op.fields, catalog);
  const written = plan.mutation?.fields.flatMap((f) => (f.kind === 'write' ? f.compiled.statements.map((s) => s.sql) : [])) ?? [];
  const stmts = [...plan.statements.map((s) => s.sql), ...written].map((s) => `${s.text};\n-- params: ${JSON.stringify(s.params)}\n`);
  return stmts.length > 0 ? stmts.join('\n') : `-- static: ${plan.staticData ?? ''}\n`;
}

const cases: string[] = [];
for (const area of readdirSync(root)) {
  const a = path.join(root, area);
  if (!statSync(a).isDirectory()) continue;
  for (const c of readdirSync(a)) if (existsSync(path.join(a, c, 'query.graphql'))) cases.push(path.join(area, c));
}

describe('golden SQL (postgres)', () => {
  it.each(cases)('%s', (c) => {
    const dir = path.join(root, c);
    const actual = generate(dir);
    const file = path.join(dir, 'expected.postgres.sql');
    if (process.env['UPDATE_GOLDEN'] === '1' || !existsSync(file)) writeFileSync(file, actual);
    expect(actual).toBe(readFileSync(file, 'utf8'));
  });
});
