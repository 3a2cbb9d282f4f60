/**
 * Golden cases (see test/golden/README.md). Every folder test/golden/passing/<area>/<case>/
 * holds `query.graphql`, optionally `request.json` ({role?, variables?, operationName?,
 * stringifyNumericTypes?, relay?: the Relay schema, serverVersion?: the source's server_version_num, default the recorded one}), and `expected.postgres.sql`: the statements the engine generates
 * for the music fixture (test/golden/fixture/: schema, metadata, recorded introspection) (a mutation: every statement of its transaction, in order),
 * laid out one clause per line (Note [Golden SQL layout]). Every folder
 * test/golden/failing/<area>/<case>/ holds the same request files and `expected.error.json`,
 * the GraphQL error body a client gets. A missing or different expected file fails; with
 * UPDATE_GOLDEN=1 the expected files are (re)written instead: review the diff.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../engine/catalog/types.ts';
import { planStatements, type Plan } from '../../engine/execute/plan.ts';
import { graphqlErrorBody, toEngineError } from '../../engine/errors/wire-body.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { catalogFromRecording, readMetadata, readRecording } from '../support/recorded-catalog.ts';
import { planRequest, type PipelineRequest } from '../support/request-pipeline.ts';
import { layoutSql } from '../support/sql-layout.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
// Built by the engine's own catalog build from the fixture's metadata and recorded introspection.
const catalog = catalogFromRecording(readMetadata(path.join(here, 'fixture/metadata.json')), readRecording(path.join(here, 'fixture/introspection.json')));
if (catalog.inconsistencies.length > 0) throw new Error(`the golden fixture is inconsistent: ${JSON.stringify(catalog.inconsistencies)}`);
const schemas = new SchemaCache();
// `request.json` with `relay: true`: the Relay schema of /v1beta1/relay.
const relaySchemas = new SchemaCache({ relay: true });
const schemasFor = (r: PipelineRequest): SchemaCache => (r.relay === true ? relaySchemas : schemas);
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

/** The fixture catalog as a server of `serverVersion` gives it (the recorded introspection otherwise). */
function catalogOn(serverVersion: number | undefined): Catalog {
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

/** Every statement of the plan, laid out, with its parameters; or the static answer. */
function renderPlan(plan: Plan): string {
  const stmts = planStatements(plan).map((s) => `${layoutSql(s.text)};\n-- params: ${JSON.stringify(s.params)}\n`);
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

describe('golden SQL (postgres)', () => {
  const root = path.join(here, 'passing');
  it.each(casesUnder(root))('%s', (c) => {
    const dir = path.join(root, c);
    const req = requestOf(dir);
    expectFile(path.join(dir, 'expected.postgres.sql'), renderPlan(planRequest(schemasFor(req), catalogOn(serverVersionOf(dir)), req)));
  });
});

describe('golden errors', () => {
  const root = path.join(here, 'failing');
  it.each(casesUnder(root))('%s', (c) => {
    const dir = path.join(root, c);
    let body: Record<string, unknown> | null = null;
    try {
      const req = requestOf(dir);
      planRequest(schemasFor(req), catalogOn(serverVersionOf(dir)), req);
    } catch (e) {
      body = graphqlErrorBody(toEngineError(e), false);
    }
    expect(body, 'the request was planned, but this case expects it to be refused').not.toBeNull();
    expectFile(path.join(dir, 'expected.error.json'), `${JSON.stringify(body, null, 2)}\n`);
  });
});
