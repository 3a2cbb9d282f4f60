/**
 * Golden cases (see test/golden/README.md). Every folder test/golden/passing/<area>/<case>/
 * holds `query.graphql`, optionally `request.json` ({role?, variables?, operationName?,
 * stringifyNumericTypes?, relay?: the Relay schema, serverVersion?: the source's server_version_num, default the recorded one}), and
 * `expected.<kind>.sql` for each source kind the case is a case of (`expected.postgres.sql`, later
 * `expected.mssql.sql`, ...): the statements the engine generates when the fixture's source is of that kind,
 * compiled by the kind's backend from engine/backends/registry.ts (a mutation: every statement of its transaction, in order),
 * laid out one clause per line (Note [Golden SQL layout]). A case without a kind's file is not a case of that kind.
 * The fixture (test/golden/fixture/) is one metadata document and a recorded introspection per kind:
 * `introspection.json` for the kind the metadata names, `introspection.<kind>.json` for another.
 * Every folder test/golden/failing/<area>/<case>/ holds the same request files and `expected.error.json`,
 * the GraphQL error body a client gets. A missing or different expected file fails; with
 * UPDATE_GOLDEN=1 the expected files are (re)written instead: review the diff.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findBackend } from '../../engine/backends/registry.ts';
import type { CompiledSql } from '../../engine/backends/sql/fragment.ts';
import type { Catalog, SourceKind } from '../../engine/catalog/types.ts';
import { planStatements, type Plan } from '../../engine/execute/plan.ts';
import { graphqlErrorBody, toEngineError } from '../../engine/errors/wire-body.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { catalogFromRecording, documentForKind, readMetadata, readRecording, withoutKeys } from '../support/recorded-catalog.ts';
import { planRequest, type PipelineRequest } from '../support/request-pipeline.ts';
import { layoutSql } from '../support/sql-layout.ts';
import { parseSql, parseTsql, sqlglotPython } from '../support/sqlglot.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const fixtureDoc = readMetadata(path.join(here, 'fixture/metadata.json'));
/** The kind of the fixture's source as its metadata names it: the kind `fixture/introspection.json` was recorded from. */
const fixtureKind: SourceKind = fixtureDoc.sources[0]?.kind ?? 'postgres';
const catalogs = new Map<SourceKind, Catalog>();

/**
 * The fixture catalog with its source of `kind`, built by the engine's own catalog build from the
 * fixture's metadata (the source's kind set to `kind`) and `kind`'s recorded introspection. Its
 * statements are compiled by `kind`'s backend from the registry, as the engine's are.
 */
function fixtureCatalog(kind: SourceKind): Catalog {
  const known = catalogs.get(kind);
  if (known !== undefined) return known;
  if (findBackend(kind) === undefined) throw new Error(`expected.${kind}.sql: there is no backend of kind "${kind}" in engine/backends/registry.ts`);
  const recording = path.join(here, kind === fixtureKind ? 'fixture/introspection.json' : `fixture/introspection.${kind}.json`);
  if (!existsSync(recording))
    throw new Error(`expected.${kind}.sql: ${path.relative(here, recording)}, the fixture schema recorded from a ${kind} server, is missing`);
  const recorded = readRecording(recording);
  // A kind whose introspection has no keys (BigQuery): relationships by the fixture's foreign keys, made manual.
  const keyless = recorded.tables.every(([, t]) => t.foreignKeys.length === 0);
  const base = keyless ? withoutKeys(fixtureDoc, readRecording(path.join(here, 'fixture/introspection.json'))) : fixtureDoc;
  const doc = kind === fixtureKind ? fixtureDoc : documentForKind(base, kind);
  const catalog = catalogFromRecording(doc, recorded);
  if (catalog.inconsistencies.length > 0) throw new Error(`the golden fixture (${kind}) is inconsistent: ${JSON.stringify(catalog.inconsistencies)}`);
  catalogs.set(kind, catalog);
  return catalog;
}
// One schema cache per kind (its catalogs all have version 1, which is what a cache is keyed by) and
// per schema: `request.json` with `relay: true` asks for the Relay schema of /v1beta1/relay.
const schemaCaches = new Map<string, SchemaCache>();
function schemasFor(r: PipelineRequest, kind: SourceKind): SchemaCache {
  const key = `${kind}${r.relay === true ? '/relay' : ''}`;
  let cache = schemaCaches.get(key);
  if (cache === undefined) {
    cache = new SchemaCache({ relay: r.relay === true });
    schemaCaches.set(key, cache);
  }
  return cache;
}
const update = process.env['UPDATE_GOLDEN'] === '1';

/** `<area>/<case>` of every case folder under `root`. */
function casesUnder(root: string): string[] {
  const cases: string[] = [];
  for (const area of readdirSync(root).sort()) {
    const a = path.join(root, area);
    if (!statSync(a).isDirectory()) continue;
    for (const c of readdirSync(a).sort()) if (existsSync(path.join(a, c, 'query.graphql'))) cases.push(path.join(area, c));
  }
  return cases;
}

/** The fixture catalog of `kind` as a server of `serverVersion` gives it (the recorded introspection otherwise). */
function catalogOn(kind: SourceKind, serverVersion: number | undefined): Catalog {
  const catalog = fixtureCatalog(kind);
  if (serverVersion === undefined) return catalog;
  const sources = new Map([...catalog.sources].map(([k, s]) => [k, { ...s, target: { serverVersion, table: s.target?.table ?? (() => undefined) } }] as const));
  return { ...catalog, sources };
}

function serverVersionOf(dir: string): number | undefined {
  const reqFile = path.join(dir, 'request.json');
  return existsSync(reqFile) ? (JSON.parse(readFileSync(reqFile, 'utf8')) as { serverVersion?: number }).serverVersion : undefined;
}

function requestOf(dir: string): PipelineRequest {
  const query = readFileSync(path.join(dir, 'query.graphql'), 'utf8');
  const reqFile = path.join(dir, 'request.json');
  const req = existsSync(reqFile) ? (JSON.parse(readFileSync(reqFile, 'utf8')) as Omit<PipelineRequest, 'query'>) : {};
  return { ...req, query };
}

/** Kinds whose connections send each parameter with its type (tedious): their files show the types too. */
const TYPED_PARAMETERS: ReadonlySet<SourceKind> = new Set(['mssql']);

function typesOf(s: CompiledSql): string {
  return JSON.stringify(s.paramTypes.map((t) => (t === null ? null : `${t.dbType}${t.list ? '[]' : ''}`)));
}

/** Every statement of the plan, laid out, with its parameters (and their types for `kind`s that send them); or the static answer. */
function renderPlan(plan: Plan, kind: SourceKind): string {
  const typed = TYPED_PARAMETERS.has(kind);
  const stmts = planStatements(plan).map((s) => `${layoutSql(s.text)};\n-- params: ${JSON.stringify(s.params)}\n${typed ? `-- types: ${typesOf(s)}\n` : ''}`);
  const statics = plan.steps.flatMap((s) => (s.kind === 'static' ? [s.json] : []));
  return stmts.length > 0 ? stmts.join('\n') : `-- static: ${statics.join('')}\n`;
}

/** Compares `actual` with the expected file, or writes it under UPDATE_GOLDEN=1. */
function expectFile(file: string, actual: string): void {
  if (update) {
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) {
    expect.fail(`${path.relative(here, file)} is missing: run UPDATE_GOLDEN=1 npx vitest run test/golden, then review what it wrote`);
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

/** `expected.<kind>.sql` */
const EXPECTED_SQL = /^expected\.([a-z0-9]+)\.sql$/;

/** The kinds `dir` is a case of: those it has an expected SQL file for. */
function kindsOf(dir: string): SourceKind[] {
  return readdirSync(dir)
    .flatMap((f) => {
      const kind = EXPECTED_SQL.exec(f)?.[1];
      return kind === undefined ? [] : [kind as SourceKind];
    })
    .sort();
}

const passingRoot = path.join(here, 'passing');
const passing = casesUnder(passingRoot).map((c) => ({ c, kinds: kindsOf(path.join(passingRoot, c)) }));

/** The case `c` planned on the fixture with its source of `kind`. */
function planOf(c: string, kind: SourceKind): Plan {
  const dir = path.join(passingRoot, c);
  const req = requestOf(dir);
  return planRequest(schemasFor(req, kind), catalogOn(kind, serverVersionOf(dir)), req);
}

/** The case `c` planned on the fixture with its source of `kind`, rendered. */
function sqlOf(c: string, kind: SourceKind): string {
  return renderPlan(planOf(c, kind), kind);
}

/**
 * A real parser of each kind's SQL, run on every statement of the kind's cases (all at once, before
 * its suite): the T-SQL of `expected.mssql.sql` files is read by sqlglot's tsql dialect, the SQL of
 * `expected.bigquery.sql` files by its bigquery dialect (test/support/sqlglot.ts). Each answer is null (parsed) or the parse error; `skip` when the parser
 * cannot run here (no python3). PostgreSQL's SQL is run by a real server instead (responses.test.ts).
 */
const PARSERS: Partial<Record<SourceKind, (texts: readonly string[]) => Promise<(string | null)[] | { skip: string }>>> = {
  mssql: async (texts) => {
    const py = await sqlglotPython();
    return 'skip' in py ? py : await parseTsql(py.python, texts);
  },
  bigquery: async (texts) => {
    const py = await sqlglotPython();
    return 'skip' in py ? py : await parseSql(py.python, 'bigquery', texts);
  },
};

/** For each parser: one statement of the kind's that parses, then two that do not (the check can fail). */
const PARSER_SAMPLES: Partial<Record<SourceKind, readonly [string, string, string]>> = {
  mssql: [
    'SELECT (SELECT 1 AS [a] FOR JSON PATH, WITHOUT_ARRAY_WRAPPER) AS [data]',
    'SELECT (SELECT 1 AS [a] FOR JSON PATH AS [data]',
    'BEGIN TRY SELECT 1 END TRY BEGIN CATCH SELECT 2 END CATCH',
  ],
  bigquery: [
    'SELECT TO_JSON_STRING(STRUCT(ARRAY(SELECT AS STRUCT 1 AS `a` LIMIT @global_select_limit) AS `t`)) AS `j`',
    'SELECT TO_JSON_STRING(STRUCT(1 AS `a`) AS `j`',
    'SELECT 1 FROM `shop`.`t` WHERE',
  ],
};

// One suite per kind that has cases; a case runs in the suite of each kind it has a file for.
for (const kind of [...new Set(passing.flatMap((p) => p.kinds))].sort()) {
  describe(`golden SQL (${kind})`, () => {
    const cases = passing.filter((p) => p.kinds.includes(kind)).map((p) => p.c);
    const parser = PARSERS[kind];
    const parseErrors = new Map<string, (string | null)[]>();
    let skipped: string | null = null;
    if (parser !== undefined) {
      beforeAll(async () => {
        const all = cases.flatMap((c) => {
          try {
            return planStatements(planOf(c, kind)).map((s) => [c, s.text] as const);
          } catch {
            return []; // the case's own test reports it
          }
        });
        const answer = await parser(all.map(([, t]) => t));
        if ('skip' in answer) {
          skipped = answer.skip;
          console.log(`[golden ${kind}] parser check skipped: ${skipped}`);
          return;
        }
        all.forEach(([c], i) => parseErrors.set(c, [...(parseErrors.get(c) ?? []), answer[i] ?? null]));
      }, 600_000);
    }

    it.each(cases)('%s', (c) => {
      const plan = planOf(c, kind);
      expectFile(path.join(passingRoot, c, `expected.${kind}.sql`), renderPlan(plan, kind));
      if (parser === undefined || skipped !== null) return;
      const stmts = planStatements(plan);
      expect(parseErrors.get(c) ?? [], `${kind} parse errors`).toEqual(stmts.map(() => null));
      if (!TYPED_PARAMETERS.has(kind)) return;
      // Every parameter has its @pN placeholder, and a type for the driver.
      for (const s of stmts) {
        expect(new Set(s.text.match(/@p\d+/g) ?? [])).toEqual(new Set(s.params.map((_, i) => `@p${i + 1}`)));
        expect(s.paramTypes.length).toBe(s.params.length);
      }
    });

    const samples = PARSER_SAMPLES[kind];
    if (parser !== undefined && samples !== undefined) {
      it(`the ${kind} parser check fails on SQL that is not`, async () => {
        const answer = await parser(samples);
        if ('skip' in answer) return;
        expect(answer).toEqual([null, expect.any(String), expect.any(String)]);
      }, 600_000);
    }
  });
}

describe('golden SQL cases', () => {
  it('every passing case is a case of some kind', () => {
    const kindless = passing.filter((p) => p.kinds.length === 0).map((p) => p.c);
    // A new case gets the fixture's own kind's file; another kind's is added by creating it (empty) and updating.
    if (update) for (const c of kindless) writeFileSync(path.join(passingRoot, c, `expected.${fixtureKind}.sql`), sqlOf(c, fixtureKind));
    else expect(kindless, `cases without an expected.<kind>.sql: run UPDATE_GOLDEN=1 npx vitest run test/golden`).toEqual([]);
  });
});

describe('golden errors', () => {
  const root = path.join(here, 'failing');
  it.each(casesUnder(root))('%s', (c) => {
    const dir = path.join(root, c);
    let body: Record<string, unknown> | null = null;
    try {
      const req = requestOf(dir);
      planRequest(schemasFor(req, fixtureKind), catalogOn(fixtureKind, serverVersionOf(dir)), req);
    } catch (e) {
      body = graphqlErrorBody(toEngineError(e), false);
    }
    expect(body, 'the request was planned, but this case expects it to be refused').not.toBeNull();
    expectFile(path.join(dir, 'expected.error.json'), `${JSON.stringify(body, null, 2)}\n`);
  });
});
