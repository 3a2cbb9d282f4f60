/**
 * A mutation root field → the Postgres statements that perform it, in order.
 * Usually one statement (data-modifying CTEs, then the output JSON built from
 * their RETURNING rows). Two more kinds of statement appear when needed:
 *
 * - an assertion, `DO $$ ... $$`, right after a statement that checks
 *   something only the written rows tell (permission checks, rows an upsert
 *   skipped under a nested insert): the statement records a failure with
 *   set_config('engine.error', ..., true) and the DO block raises it, so the
 *   transaction rolls back. Plain SQL cannot raise an error of its own, and
 *   this needs no function installed in the user's database;
 * - a read-back statement after a nested insert whose output follows
 *   relationships (see Note [Nested insert shape] in translate/insert.ts).
 *
 * No statement depends on the result of an earlier one in JavaScript, so a
 * transaction's statements are sent in one round trip (connection.ts).
 *
 * Note [Generic plans for mutations]
 * Decision: the statement shapes stay as they are. Every shape measured
 * (insert one / 3 rows / on_conflict update, update_by_pk _set, update
 * _inc, _set + _inc, delete, delete_by_pk, a role's check, update_many's
 * entries, a nested insert's write and read-back; and the quick set's reads)
 * gets PostgreSQL's generic plan once it runs as a named prepared statement:
 * 0 plans in 200-300 calls after 20 warm-up calls. Their parameters are one
 * jsonb document per input (jsonb_array_elements / jsonb_populate_record
 * have no row estimate from a value, so the generic estimate equals the
 * custom one) and typed (`$n::jsonb`); nothing here depends on a value for
 * its row count, unlike the `generate_series($1)` of event-log-cost.ts's
 * engine-style statement, which is re-planned on every call. The generic
 * plans are as fast: execution 0.030-0.037 ms against 0.034-0.037 custom
 * (a role's checked insert), 0.019 against 0.026 (a nested insert's read-back).
 * What WAS planned on every call is any mutation of more than one statement:
 * a lone statement ran named (connection.ts queryJsonText, Note [Named
 * prepared statements]) but transactionJsonText sent its statements
 * unnamed, so each was parsed and custom-planned per request. That is every
 * mutation with a role's check (write + assertion), update_many, and a
 * nested insert whose output follows a relationship (write + read-back).
 * So transactionJsonText names them too, through the same bounded #nameOf;
 * a stale name reruns the whole transaction unnamed once (nothing of it
 * committed). The shapes here stay. Measured
 * 2026-11-28 on chinook, PostgreSQL 18, the current engine against a
 * worktree whose transactionJsonText passes `this.#nameOf(s.text)` (one
 * line), alternated, 3 rounds × 300 requests, PostgreSQL CPU of every
 * backend per request (plans per call of the write statement):
 *   role insert one with check  0.34-0.39 ms (1 plan, 0.071-0.077 ms planning) → 0.17-0.21 (0 plans)
 *   role update_by_pk with check 0.34-0.37 ms (1 plan, 0.071-0.080 ms)       → 0.17-0.19 (0)
 *   update_many, 2 entries       0.40-0.42 ms (2 plans, 0.050-0.052 ms each)  → 0.13-0.17 (0)
 *   nested insert + read-back    0.83-0.86 ms (2 plans, 0.19 + 0.11 ms)       → 0.27-0.28 (0)
 *   lone insert one (control)    0.086-0.095 (0 plans, named on both sides)   → 0.089-0.101
 * Engine CPU per request was the same within the measurement's resolution
 * (clock ticks: ±33 µs at 300 requests). With an event trigger on the table
 * (same run, `--only "insert one"`), the capture trigger's INSERT and the
 * delivery's take and record statements are not re-planned either (0-0.04
 * plans per call): the trigger's ~4× PostgreSQL CPU is not planning. Re-measure: run
 * `BENCH_PG_STAT_STATEMENTS=1 node test/bench/serve.ts chinook /tmp/t.json`, then
 * `node test/bench/mutation-plans.ts <engine url> <database url> --targets /tmp/t.json --engine-pid <pid>`
 * (README of test/bench).
 * What stays of a checked mutation once named is mostly the assertion's DO
 * block: an inline block is compiled, and its IF expression parsed and
 * planned, on every call (a DO body is not a cached function). `node
 * test/bench/mutation-plans.ts x <database url> --calls 400 --assertion-cost`
 * (2026-11-28, chinook, 9 alternated rounds, PostgreSQL CPU per transaction):
 * write alone 49 µs, + this DO 87, + an empty DO 64, + a plain SELECT 62; a
 * DECLAREd variable instead of the repeated current_setting calls saved
 * nothing. The DO stays: plain SQL has no locale-independent way to raise
 * an error worded by the statement (a cast's or a GUC name's error carries
 * the text only inside a translated message), and a function would have to
 * be installed in the user's database.
 */
import type * as ir from '../../ir/index.ts';
import type { CompiledMutation, CompileTarget, MutationStatement } from '../backend.ts';
import { compileFragment, ident, join, param, sql, stringLiteral, type CompiledSql, type Fragment } from '../sql/fragment.ts';
import { POSTGRES_DIALECT } from './dialect.ts';
import { jsonArrayAgg, jsonObject } from './json.ts';
import { AliasCounter, columnOf } from './translate/context.ts';
import { assertionColumns, translateInsert, type Assertion } from './translate/insert.ts';
import { cteRows, outputFollowsRelationships, translateMutationOutput, type WrittenRows } from './translate/mutation-output.ts';
import { translateDelete, translateUpdate, WRITTEN, writtenCount, type TranslatedWrite } from './translate/update.ts';

/** DETAIL of the error an assertion raises; errors.ts maps it back to an Engine error (HINT = wire code). */
export const ASSERTION_DETAIL = 'engine-assertion';

/** The transaction-local setting carrying a nested insert's keys to its read-back statement. */
const CARRY = 'engine.mutation';

const ASSERT_SQL: CompiledSql = {
  text:
    "DO $$BEGIN IF coalesce(current_setting('engine.error', true), '') <> '' THEN " +
    "RAISE EXCEPTION USING MESSAGE = substr(current_setting('engine.error'), strpos(current_setting('engine.error'), '|') + 1), " +
    "HINT = split_part(current_setting('engine.error'), '|', 1), " +
    `DETAIL = '${ASSERTION_DETAIL}'; END IF; END$$`,
  params: [],
  paramTypes: [],
};

/**
 * The writing request's session for capture triggers: a transaction-local
 * setting made by the statement itself (no extra statement or round trip),
 * evaluated in its final SELECT, which runs before the AFTER ROW triggers of
 * its data-modifying CTEs fire at the statement's end. See Note [Capture
 * triggers] in event-trigger-ddl.ts.
 */
const SESSION_SETTING = sql`set_config(${stringLiteral('engine.session')}, ${param({ kind: 'session-object' })}, true)`;

function withAssertions(main: Fragment, ctes: readonly Fragment[], assertions: readonly Assertion[], output: boolean): MutationStatement[] {
  const cols = [sql`${main}::text`, SESSION_SETTING, ...assertionColumns(assertions)];
  const stmt: MutationStatement = { sql: compileFragment(sql`WITH ${join(ctes, ', ')} SELECT ${join(cols, ', ')}`, POSTGRES_DIALECT), output };
  return assertions.length === 0 ? [stmt] : [stmt, { sql: ASSERT_SQL, output: false }];
}

function compileInsert(ins: ir.Insert, target: CompileTarget): MutationStatement[] {
  const aliases = new AliasCounter();
  const t = translateInsert(ins, aliases, target);
  const nested = ins.root.parents.length > 0 || ins.root.children.length > 0;
  if (!nested || ins.primaryKey.length === 0 || !outputFollowsRelationships(ins.output)) {
    const out = translateMutationOutput(ins.output, cteRows(t.rootRows, t.count, t.rootOrdered), aliases);
    return withAssertions(out, t.ctes, t.assertions, true);
  }
  const x = aliases.fresh();
  const keys = jsonObject(ins.primaryKey.map((k) => ({ key: k, value: columnOf(x, k) })));
  const carried = jsonObject([
    { key: 'affected_rows', value: t.count },
    { key: 'keys', value: sql`(SELECT ${jsonArrayAgg(keys, t.rootOrdered ? columnOf(x, '__ord') : null)} FROM ${ident(t.rootRows)} AS ${ident(x)})` },
  ]);
  const write = withAssertions(sql`set_config(${stringLiteral(CARRY)}, (${carried})::text, true)`, t.ctes, t.assertions, false);
  const readAliases = new AliasCounter();
  const table = sql`${ident(ins.root.table.schema)}.${ident(ins.root.table.name)}`;
  const rows: WrittenRows = {
    from: (alias) => {
      const k = `${alias}_k`;
      const kr = `${alias}_kr`;
      const on = join(
        ins.primaryKey.map((c) => sql`${columnOf(alias, c)} = ${columnOf(kr, c)}`),
        ' AND ',
      );
      return sql`jsonb_array_elements("c"."v" -> 'keys') WITH ORDINALITY AS ${ident(k)}("v", "ord") CROSS JOIN LATERAL jsonb_populate_record(NULL::${table}, ${columnOf(k, 'v')}) AS ${ident(kr)} JOIN ${table} AS ${ident(alias)} ON ${on}`;
    },
    order: (alias) => columnOf(`${alias}_k`, 'ord'),
    count: sql`("c"."v" ->> 'affected_rows')::bigint`,
  };
  const out = translateMutationOutput(ins.output, rows, readAliases);
  const read = compileFragment(sql`SELECT (${out})::text FROM (SELECT current_setting(${stringLiteral(CARRY)})::jsonb AS "v") AS "c"`, POSTGRES_DIALECT);
  return [...write, { sql: read, output: true }];
}

function compileWrite(w: TranslatedWrite, output: ir.MutationOutput, aliases: AliasCounter): MutationStatement[] {
  const out = translateMutationOutput(output, cteRows(WRITTEN, writtenCount, false), aliases);
  return withAssertions(out, [w.cte], w.assertions, true);
}

function compileUpdate(u: ir.Update): MutationStatement[] {
  const aliases = new AliasCounter();
  return compileWrite(translateUpdate(u, aliases), u.output, aliases);
}

/** Compiles one mutation root field. */
export function compileMutation(m: ir.Mutation, target: CompileTarget): CompiledMutation {
  switch (m.kind) {
    case 'insert':
      return { statements: compileInsert(m.insert, target), list: false };
    case 'update':
      return { statements: compileUpdate(m.update), list: false };
    case 'update-many':
      // One statement per entry: a later entry must see the rows an earlier one changed.
      return { statements: m.updates.flatMap(compileUpdate), list: true };
    case 'delete': {
      const aliases = new AliasCounter();
      return { statements: compileWrite(translateDelete(m.delete, aliases), m.delete.output, aliases), list: false };
    }
  }
}
