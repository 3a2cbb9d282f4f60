/**
 * Golden T-SQL of the MSSQL backend, each statement checked by a real T-SQL
 * parser (sqlglot's tsql dialect: test/support/sqlglot.ts).
 *
 * The requests are the PostgreSQL golden cases (test/golden/passing/), planned
 * the same way on the same fixture (test/golden/README.md); the IR of each
 * plan is compiled by the MSSQL compilers, and every statement is compared
 * with `golden/<area>/<case>.sql` here. The harness there is not
 * dialect-parametric yet, so this file stands in for `expected.mssql.sql`
 * files. Cases using what an MSSQL source does not offer (its capabilities
 * and operators: distinct_on, Relay, functions and computed fields, JSON
 * operators, _ilike/_regex, nested inserts) are listed in UNSUPPORTED, and must be
 * refused with `not-supported`, so that the list stays true.
 * UPDATE_GOLDEN=1 rewrites the expected files.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as ir from '../../../../engine/ir/index.ts';
import { UNKNOWN_TARGET } from '../../../../engine/backends/backend.ts';
import type { CompiledSql } from '../../../../engine/backends/sql/fragment.ts';
import { compileMutation } from '../../../../engine/backends/mssql/compile-mutation.ts';
import { compileQuery } from '../../../../engine/backends/mssql/compile.ts';
import { EngineError } from '../../../../engine/errors/engine-error.ts';
import { SchemaCache } from '../../../../engine/graphql/schema/schema-cache.ts';
import { catalogFromRecording, readMetadata, readRecording } from '../../../support/recorded-catalog.ts';
import { planRequest, type PipelineRequest } from '../../../support/request-pipeline.ts';
import { layoutSql } from '../../../support/sql-layout.ts';
import { parseTsql, sqlglotPython } from '../../../support/sqlglot.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const goldenRoot = path.resolve(here, '../../../golden');
const expectedRoot = path.join(here, 'golden');
const update = process.env['UPDATE_GOLDEN'] === '1';

const catalog = catalogFromRecording(
  readMetadata(path.join(goldenRoot, 'fixture/metadata.json')),
  readRecording(path.join(goldenRoot, 'fixture/introspection.json')),
);
const schemas = new SchemaCache();

/** PostgreSQL golden cases an MSSQL source cannot be asked (the feature each needs). */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  'filter/array-in': 'array columns',
  'filter/jsonb-array-enum': 'array columns',
  'filter/operators': '_ilike/_regex',
  'functions/aggregate': 'functions',
  'functions/computed-fields': 'computed fields',
  'functions/root-field': 'functions',
  'mutations/insert-nested-before-17': 'nested inserts',
  'mutations/insert-nested-three-levels': 'nested inserts',
  'mutations/insert-nested-two-levels': 'nested inserts',
  'mutations/insert-object-child': 'nested inserts',
  'mutations/update': 'JSON update operators',
  'mutations/update-jsonb-ops': 'JSON update operators',
  'order/computed-aggregate': 'computed fields',
  'permissions/inherited-computed-field': 'computed fields',
  'relay/connection-page': 'Relay',
  'relay/node': 'Relay',
  'relay/relationship-connection': 'Relay',
  'select/distinct-on': 'distinct_on',
};

function casesUnder(root: string): string[] {
  const cases: string[] = [];
  for (const area of readdirSync(root).sort()) {
    const a = path.join(root, area);
    if (!statSync(a).isDirectory()) continue;
    for (const c of readdirSync(a).sort()) if (existsSync(path.join(a, c, 'query.graphql'))) cases.push(`${area}/${c}`);
  }
  return cases;
}

function requestOf(dir: string): PipelineRequest & { relay?: boolean } {
  const query = readFileSync(path.join(dir, 'query.graphql'), 'utf8');
  const reqFile = path.join(dir, 'request.json');
  const req = existsSync(reqFile) ? (JSON.parse(readFileSync(reqFile, 'utf8')) as Omit<PipelineRequest, 'query'>) : {};
  return { ...req, query };
}

/** The MSSQL statements of a request: one for its read fields, one batch per mutation field (or update_many entry). */
function mssqlStatements(fields: readonly ir.OperationField[]): CompiledSql[] {
  const reads = fields.filter(
    (f): f is ir.QueryRootField => f.kind === 'select' || f.kind === 'aggregate' || f.kind === 'static' || f.kind === 'connection' || f.kind === 'namespace',
  );
  const out: CompiledSql[] = reads.length > 0 ? [compileQuery(reads)] : [];
  const target = catalog.sources.get('default')?.target ?? UNKNOWN_TARGET;
  for (const f of fields) if (f.kind === 'mutation') out.push(...compileMutation(f.mutation, target).statements.map((s) => s.sql));
  return out;
}

function render(stmts: readonly CompiledSql[]): string {
  return stmts
    .map(
      (s) =>
        `${layoutSql(s.text)}${s.text.endsWith(';') ? '' : ';'}\n-- params: ${JSON.stringify(s.params)}\n-- types: ${JSON.stringify(s.paramTypes.map((t) => (t === null ? null : `${t.dbType}${t.list ? '[]' : ''}`)))}\n`,
    )
    .join('\n');
}

const cases = casesUnder(path.join(goldenRoot, 'passing'));
/** Requests of shapes only MSSQL needs (`cases/` here: _in/_nin lists, nulls orders, OFFSET, aggregate functions, MERGE partitions, _inc, several fields in one transaction), on the same fixture. */
const ownCases = casesUnder(path.join(here, 'cases'));
const compiled = new Map<string, CompiledSql[]>();
for (const c of cases) {
  if (UNSUPPORTED[c] !== undefined) continue;
  compiled.set(c, mssqlStatements(planRequest(schemas, catalog, requestOf(path.join(goldenRoot, 'passing', c))).fields));
}
for (const c of ownCases) compiled.set(`mssql/${c}`, mssqlStatements(planRequest(schemas, catalog, requestOf(path.join(here, 'cases', c))).fields));

let parsed: Map<string, (string | null)[]> | { skip: string } = { skip: 'not parsed yet' };

beforeAll(async () => {
  const py = await sqlglotPython();
  if ('skip' in py) {
    console.log(`[mssql golden] parser check skipped: ${py.skip}`);
    parsed = py;
    return;
  }
  const all = [...compiled].flatMap(([c, stmts]) => stmts.map((s) => [c, s.text] as const));
  const errors = await parseTsql(
    py.python,
    all.map(([, t]) => t),
  );
  const byCase = new Map<string, (string | null)[]>();
  all.forEach(([c], i) => byCase.set(c, [...(byCase.get(c) ?? []), errors[i] ?? null]));
  parsed = byCase;
}, 600_000);

describe('MSSQL golden T-SQL', () => {
  it('compiles every PostgreSQL case of a shape MSSQL has', () => {
    expect(compiled.size).toBe(cases.length - Object.keys(UNSUPPORTED).length + ownCases.length);
  });

  it.each([...compiled.keys()])('%s', (c) => {
    const stmts = compiled.get(c) ?? [];
    expect(stmts.length).toBeGreaterThan(0);
    const file = path.join(expectedRoot, `${c}.sql`);
    const actual = render(stmts);
    if (update) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, actual);
    } else {
      if (!existsSync(file))
        expect.fail(`${path.relative(here, file)} is missing: run UPDATE_GOLDEN=1 npx vitest run ${path.relative(process.cwd(), __filename)}`);
      expect(actual).toBe(readFileSync(file, 'utf8'));
    }
    if ('skip' in parsed) return;
    expect(parsed.get(c), 'T-SQL parse errors (sqlglot tsql)').toEqual(stmts.map(() => null));
    // Every parameter has its @pN placeholder, typed for tedious.
    for (const s of stmts) {
      const used = new Set(s.text.match(/@p\d+/g) ?? []);
      expect(used).toEqual(new Set(s.params.map((_, i) => `@p${i + 1}`)));
      expect(s.paramTypes.length).toBe(s.params.length);
    }
  });

  it.each(Object.entries(UNSUPPORTED))('%s is refused (%s)', (c) => {
    const req = requestOf(path.join(goldenRoot, 'passing', c));
    let error: unknown = null;
    try {
      mssqlStatements(planRequest(req.relay === true ? new SchemaCache({ relay: true }) : schemas, catalog, req).fields);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('not-supported');
  });

  it('the parser check fails on T-SQL that is not', async () => {
    if ('skip' in parsed) return;
    const py = await sqlglotPython();
    if ('skip' in py) return;
    const [ok, unbalanced, opaque] = await parseTsql(py.python, [
      'SELECT (SELECT 1 AS [a] FOR JSON PATH, WITHOUT_ARRAY_WRAPPER) AS [data]',
      'SELECT (SELECT 1 AS [a] FOR JSON PATH AS [data]',
      'BEGIN TRY SELECT 1 END TRY BEGIN CATCH SELECT 2 END CATCH',
    ]);
    expect(ok).toBeNull();
    expect(unbalanced).toEqual(expect.any(String));
    expect(opaque).toEqual(expect.any(String));
  });
});
