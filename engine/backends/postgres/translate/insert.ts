/**
 * ir.Insert → one Postgres statement made of data-modifying CTEs.
 *
 * Note [Nested insert shape]
 * The input rows arrive as one jsonb array parameter (Note [Mutation inputs
 * as JSON] in ir/mutation.ts). Every table level of the input tree gets:
 *
 *   _r<L>   its input objects, numbered: (__ord, __pord = owner's __ord, __j)
 *           — the root unnests the parameter WITH ORDINALITY; a nested level
 *           unnests `__j -> '<rel>' -> 'data'` of its owner's rows;
 *   _i<L>_<p> one INSERT per partition (rows giving the same columns), as
 *           INSERT .. SELECT .. FROM _r<L> .. ORDER BY __ord RETURNING *,
 *           each JSON object made a row of the table by
 *           jsonb_populate_record (presets merged in), link columns taken
 *           from the related level's inserted rows;
 *   _n<L>   the inserted rows with their input numbers, for levels others
 *           link to and for a root of several partitions (output order).
 *
 * Object relationships (parents) are inserted before their owner, array
 * relationships (children) after it, so one statement writes the whole tree
 * with no per-row round trips. Inserted rows are matched to their input rows
 * as Note [Correlated nested inserts] says. For a level other rows depend
 * on, a row skipped by ON CONFLICT (DO NOTHING, or DO UPDATE .. WHERE) fails
 * the statement's assertion (v2 compat: "cannot proceed to insert ...
 * affects zero rows") and the transaction rolls back. A row a BEFORE trigger
 * skips (returns NULL) is not asserted on, as that would cost every nested
 * insert a second statement: the rows nested under it are not inserted
 * either (they have no row to link to), and no other row's are misplaced.
 *
 * Data-modifying CTEs do not see each other's rows through the tables, so
 * when the output follows relationships of inserted rows, the statement only
 * stores the root rows' primary keys (set_config, transaction-local) and a
 * second statement in the same transaction builds the output from the table.
 */
import type * as ir from '../../../ir/index.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import type { CompileTarget } from '../../backend.ts';
import { ident, join, param, qualified, raw, seq, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { translateBoolExp } from './bool-exp.ts';
import { columnOf, type AliasCounter } from './context.ts';

/** A condition that, when true after the statement, must fail the transaction with `code` and `message`. */
export interface Assertion {
  readonly failed: Fragment;
  readonly code: string;
  readonly message: string;
}

/** The write part of an insert statement. */
export interface TranslatedInsert {
  /** `name AS (...)` items of the WITH clause, in order. */
  readonly ctes: readonly Fragment[];
  /** affected_rows: rows written at every level. */
  readonly count: Fragment;
  /** The CTE holding the root level's rows. */
  readonly rootRows: string;
  /** True when `rootRows` has `__ord` (input order); else its rows are in insertion order already. */
  readonly rootOrdered: boolean;
  readonly assertions: readonly Assertion[];
}

interface Node {
  readonly level: ir.InsertLevel;
  readonly index: number;
  readonly parents: ReadonlyArray<{ readonly nested: ir.NestedInsert; readonly node: Node }>;
  readonly children: ReadonlyArray<{ readonly nested: ir.NestedInsert; readonly node: Node }>;
  /** True when other levels link to this one's rows. */
  readonly linked: boolean;
}

function buildNode(level: ir.InsertLevel, linked: boolean, next: { n: number }): Node {
  const index = next.n++;
  const parents = level.parents.map((nested) => ({ nested, node: buildNode(nested.level, true, next) }));
  const children = level.children.map((nested) => ({ nested, node: buildNode(nested.level, false, next) }));
  return { level, index, parents, children, linked: linked || children.length > 0 };
}

const rowsCte = (n: Node): string => `_r${n.index}`;
const insertCte = (n: Node, p: number): string => `_i${n.index}_${p}`;
const linkedCte = (n: Node): string => `_n${n.index}`;
const sourceCte = (n: Node, p: number): string => `_s${n.index}_${p}`;

/**
 * Note [Correlated nested inserts]
 * Rows of a level that other levels link to (a parent of nested rows, or a
 * root of several partitions, whose output keeps input order) must be
 * matched to their input rows. RETURNING order is not promised, and a BEFORE
 * trigger may rewrite any column, the key included, so neither position nor
 * the row's values are a safe link. Instead:
 *
 * - a plain insert is a MERGE .. ON false WHEN NOT MATCHED THEN INSERT over
 *   the numbered input rows (`_s<L>_<p>`), whose RETURNING names the source
 *   row's `__ord`, `__pord` beside the inserted row: the link is carried
 *   through the statement (PostgreSQL 17+: MERGE .. RETURNING);
 * - on PostgreSQL before 17, a plain insert assigns the primary key before
 *   the insert instead: the input gives it, or `_s<L>_<p>` (MATERIALIZED, so
 *   once per row) evaluates the column's own default (`nextval(..)`,
 *   `gen_random_uuid()`; a default cannot read other columns, so this is the
 *   value the INSERT would have drawn) or, for an identity column, nextval of
 *   its sequence, inserted with OVERRIDING SYSTEM VALUE. RETURNING then joins
 *   back to `_s<L>_<p>` on the key, as for an upsert below (a trigger that
 *   changes the key fails the statement's assertion, never mislinks). A
 *   linked level without a primary key, or whose key is neither given nor
 *   defaulted, is refused (not-supported) on those versions; a root linked
 *   only for output order falls back to position (order, not integrity).
 *   Weighed against this: one CTE per input row (the link holds by
 *   construction) makes the statement's text depend on the row count, which
 *   is a variable, so plans could no longer be cached per query; one
 *   statement per parent row (v2) costs a round trip per row. Pre-assigning
 *   keeps one statement, one round trip and a text independent of the rows;
 *   the cut-over is the server version alone (server_version_num, read at
 *   introspection: CompileTarget). Cost, 200 parents × 20 children, 30 runs
 *   on 18 (`node test/bench/nested-insert-cost.ts` over the goldens
 *   insert-nested-two-levels and insert-nested-before-17): MERGE median
 *   40.7 ms, p10 36.9; keys given before the insert median 44.1, p10 36.4;
 * - an upsert (ON CONFLICT has no MERGE equivalent under concurrency) whose
 *   rows give every conflict column joins RETURNING back to `_s<L>_<p>` on
 *   those columns, known before the insert; a row that comes back without
 *   its key (a trigger changed it) fails the statement's assertion instead
 *   of linking a child under another parent;
 * - an upsert whose rows do not give the conflict columns (they come from
 *   defaults) still matches by position (INSERT .. SELECT .. ORDER BY and
 *   RETURNING in insertion order, true of PostgreSQL but not promised).
 *
 * A level nothing links to (a plain root, leaf children) stays INSERT ..
 * SELECT: nothing is matched there.
 */
type LinkKind = 'none' | 'merge' | 'key' | 'position';

/** The first server_version_num with MERGE .. RETURNING. */
const MERGE_RETURNING_VERSION = 170000;

/** Primary key values assigned before the insert (PostgreSQL < 17), or why they cannot be. */
type PreassignedKey = { readonly values: ReadonlyArray<readonly [string, Fragment]>; readonly overriding: boolean } | { readonly missing: string };

/** How each primary key column not given by the input gets its value before the insert. See Note [Correlated nested inserts]. */
function preassignKey(level: ir.InsertLevel, given: readonly string[], target: CompileTarget): PreassignedKey {
  if (level.primaryKey.length === 0) return { missing: 'it has no primary key' };
  const table = target.table(level.table);
  const values: Array<readonly [string, Fragment]> = [];
  let overriding = false;
  for (const k of level.primaryKey) {
    if (given.includes(k)) continue;
    const col = table?.columns.find((c) => c.name === k);
    if (col?.identity === 'always' || col?.identity === 'by-default') {
      const quote = (x: string): string => `"${x.replace(/"/g, '""')}"`;
      const name = `${quote(level.table.schema)}.${quote(level.table.name)}`;
      values.push([k, sql`nextval(pg_get_serial_sequence(${stringLiteral(name)}, ${stringLiteral(k)}))`]);
      overriding = true;
    } else if (typeof col?.defaultSql === 'string' && col.defaultSql !== '') {
      // The column's own default, as the catalog deparses it (table DDL, not request input).
      values.push([k, sql`(${raw(col.defaultSql)})`]);
    } else {
      return { missing: `its primary key column "${k}" is neither given nor has a default` };
    }
  }
  return { values, overriding };
}

/** The conflict columns when every row of the partition gives each of them (`cols`), else null. */
function keyColumns(c: ir.OnConflict, cols: readonly string[]): readonly string[] | null {
  return c.constraintColumns.length > 0 && c.constraintColumns.every((k) => cols.includes(k)) ? c.constraintColumns : null;
}

/** `"i".k = "s".k AND ...` over the conflict columns. */
function keyJoin(keys: readonly string[]): Fragment {
  return join(
    keys.map((k) => sql`${columnOf('i', k)} = ${columnOf('s', k)}`),
    ' AND ',
  );
}

/** `o.__j -> 'key' -> 'data'`. */
function nestedData(owner: string, key: string): Fragment {
  return sql`${columnOf(owner, '__j')} -> ${stringLiteral(key)} -> 'data'`;
}

/** Whether a row (`s`) nests parent rows under `key`: the same test that builds that parent level's rows. */
function hasParent(key: string, present: boolean): Fragment {
  // IS [NOT] TRUE: a row without the key gives NULL, which must count as "absent".
  return sql`(jsonb_typeof(${nestedData('s', key)}) = 'object') ${raw(present ? 'IS TRUE' : 'IS NOT TRUE')}`;
}

/** The input-rows CTEs of `n` and below, owners first. */
function rowsCtes(n: Node, rows: ir.ParamSource, out: Fragment[]): void {
  if (n.index === 0) {
    out.push(
      sql`${ident(rowsCte(n))} AS (SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j" FROM jsonb_array_elements(${param(rows, 'jsonb')}) WITH ORDINALITY AS "e"("value", "ord"))`,
    );
  }
  const owner = ident(rowsCte(n));
  for (const { nested, node } of n.parents) {
    out.push(
      sql`${ident(rowsCte(node))} AS (SELECT row_number() OVER (ORDER BY "o"."__ord") AS "__ord", "o"."__ord" AS "__pord", ${nestedData('o', nested.key)} AS "__j" FROM ${owner} AS "o" WHERE jsonb_typeof(${nestedData('o', nested.key)}) = 'object')`,
    );
    rowsCtes(node, rows, out);
  }
  for (const { nested, node } of n.children) {
    const data = nestedData('o', nested.key);
    // A one-to-one child (an object relationship with the foreign key on the target) is one object: a list of one.
    const list =
      nested.one === true
        ? sql`CASE WHEN jsonb_typeof(${data}) = 'object' THEN jsonb_build_array(${data}) END`
        : sql`CASE WHEN jsonb_typeof(${data}) = 'array' THEN ${data} END`;
    out.push(
      sql`${ident(rowsCte(node))} AS (SELECT row_number() OVER (ORDER BY "o"."__ord", "e"."ord") AS "__ord", "o"."__ord" AS "__pord", "e"."value" AS "__j" FROM ${owner} AS "o" CROSS JOIN LATERAL jsonb_array_elements(${list}) WITH ORDINALITY AS "e"("value", "ord"))`,
    );
    rowsCtes(node, rows, out);
  }
}

/** Rows of `_r` belonging to partition `p` (no condition when the level has one partition). */
function partitionFilter(level: ir.InsertLevel, p: ir.InsertPartition): Fragment | null {
  if (level.partitions.length === 1) return null;
  const given = new Set(p.columns.map((c) => c.key));
  const parents = new Set(p.parents);
  const conds = [
    ...level.inputColumns.map((c) => {
      const has = sql`(${columnOf('s', '__j')} ? ${stringLiteral(c.key)})`;
      return given.has(c.key) ? has : sql`NOT ${has}`;
    }),
    ...level.parents.map((n) => hasParent(n.key, parents.has(n.key))),
  ];
  return join(conds, ' AND ');
}

/** `jsonb_populate_record(NULL::t, <row JSON keyed by column names, presets merged>)`. */
function rowRecord(level: ir.InsertLevel, p: ir.InsertPartition): Fragment {
  const j = columnOf('s', '__j');
  const renamed = p.columns.some((c) => c.key !== c.column);
  let json = renamed
    ? sql`jsonb_build_object(${join(
        p.columns.map((c) => sql`${stringLiteral(c.column)}, ${j} -> ${stringLiteral(c.key)}`),
        ', ',
      )})`
    : j;
  if (level.presets !== null) json = sql`${json} || ${param(level.presets.value, 'jsonb')}`;
  return sql`jsonb_populate_record(NULL::${qualified(level.table.schema, level.table.name)}, ${json})`;
}

/** True when the upsert updates conflicting rows (else DO NOTHING). */
function updatesOnConflict(c: ir.OnConflict): boolean {
  return c.updateColumns.length > 0 || c.presets !== null;
}

function onConflictClause(c: ir.OnConflict, level: ir.InsertLevel, target: string, aliases: AliasCounter): Fragment {
  const on = sql` ON CONFLICT (${join(c.constraintColumns.map(ident), ', ')})`;
  if (!updatesOnConflict(c)) return sql`${on} DO NOTHING`;
  const sets = c.updateColumns.map((col) => sql`${ident(col)} = EXCLUDED.${ident(col)}`);
  if (c.presets !== null) {
    const table = qualified(level.table.schema, level.table.name);
    const record = sql`jsonb_populate_record(NULL::${table}, ${param(c.presets.value, 'jsonb')})`;
    for (const col of c.presets.columns) sets.push(sql`${ident(col)} = (${record}).${ident(col)}`);
  }
  const where = c.where === null ? raw('') : sql` WHERE ${translateBoolExp(c.where, target, aliases)}`;
  return sql`${on} DO UPDATE SET ${join(sets, ', ')}${where}`;
}

/** True when ON CONFLICT may leave an input row without a returned row. */
function maySkip(c: ir.OnConflict | null): boolean {
  return c !== null && (!updatesOnConflict(c) || c.where !== null);
}

/**
 * Whether the returned rows must say which were inserted and which updated:
 * an upsert that updates applies the insert check to new rows and the update
 * check to updated ones (`xmax = 0` marks a row this statement inserted).
 */
function marksInserted(level: ir.InsertLevel): boolean {
  const c = level.onConflict;
  return c !== null && updatesOnConflict(c) && (level.check !== null || c.check !== null);
}
const INSERTED = '__inserted';

function errorText(code: string, message: string): string {
  return `${code}|${message}`;
}

/** The INSERT CTEs of `n` and the levels it links to, dependencies first. */
interface Statement {
  readonly ctes: Fragment[];
  readonly counts: Fragment[];
  readonly assertions: Assertion[];
  readonly target: CompileTarget;
}

function insertCtes(n: Node, owner: { node: Node; nested: ir.NestedInsert } | null, aliases: AliasCounter, st: Statement): void {
  for (const p of n.parents) insertCtes(p.node, null, aliases, st);
  const level = n.level;
  const table = qualified(level.table.schema, level.table.name);
  const numbered: Array<{ cte: string; inputs: Fragment; link: LinkKind; keyed: readonly string[] | null; source: string }> = [];
  level.partitions.forEach((part, pi) => {
    const target = aliases.fresh();
    const cols: string[] = [];
    const values: Fragment[] = [];
    const add = (column: string, value: Fragment): void => {
      if (cols.includes(column)) return;
      cols.push(column);
      values.push(value);
    };
    const froms: Fragment[] = [sql`${ident(rowsCte(n))} AS "s"`];
    if (owner !== null) {
      froms.push(sql` JOIN ${ident(linkedCte(owner.node))} AS "o" ON "o"."__ord" = "s"."__pord"`);
      for (const [local, remote] of owner.nested.mapping) add(remote, columnOf('o', local));
    }
    n.parents.forEach(({ nested, node }, i) => {
      if (!part.parents.includes(nested.key)) return;
      const a = `p${i}`;
      froms.push(sql` JOIN ${ident(linkedCte(node))} AS ${ident(a)} ON ${columnOf(a, '__pord')} = "s"."__ord"`);
      for (const [local, remote] of nested.mapping) add(local, columnOf(a, remote));
    });
    for (const c of part.columns) add(c.column, columnOf('r', c.column));
    for (const c of level.presets?.columns ?? []) add(c, columnOf('r', c));
    froms.push(sql` CROSS JOIN LATERAL ${rowRecord(level, part)} AS "r"`);
    const filter = partitionFilter(level, part);
    const conflict = level.onConflict === null ? raw('') : onConflictClause(level.onConflict, level, target, aliases);
    const marked = marksInserted(level);
    const name = insertCte(n, pi);
    const returning = marked ? sql`, (${columnOf(target, 'xmax')} = 0) AS ${ident(INSERTED)}` : raw('');
    // Note [Correlated nested inserts]: how the rows of a level others link to are matched to their inputs.
    const needsLink = n.linked || (n.index === 0 && level.partitions.length > 1);
    let keyed = level.onConflict === null ? null : keyColumns(level.onConflict, cols);
    let link: LinkKind = !needsLink ? 'none' : level.onConflict === null ? 'merge' : keyed !== null ? 'key' : 'position';
    let preassigned = false;
    let overriding = false;
    const version = st.target.serverVersion;
    if (link === 'merge' && version !== null && version < MERGE_RETURNING_VERSION) {
      const key = preassignKey(level, cols, st.target);
      if ('values' in key) {
        for (const [k, v] of key.values) add(k, v);
        link = 'key';
        keyed = level.primaryKey;
        preassigned = key.values.length > 0;
        overriding = key.overriding;
      } else if (n.linked) {
        throw new EngineError(
          ErrorCode.NotSupported,
          `nested insert through table "${level.table.name}" needs PostgreSQL 17 or later: ${key.missing}, so its rows cannot be linked before they are inserted`,
        );
      } else {
        link = 'position';
      }
    }
    const where = filter === null ? raw('') : sql` WHERE ${filter}`;
    if (link === 'merge' || link === 'key') {
      const src = sourceCte(n, pi);
      const named = cols.map((c, i) => sql`${values[i]!} AS ${ident(c)}`);
      st.ctes.push(
        seq([
          sql`${ident(src)} AS ${raw(preassigned ? 'MATERIALIZED ' : '')}(SELECT "s"."__ord", "s"."__pord"`,
          named.length === 0 ? raw('') : sql`, ${join(named, ', ')}`,
          sql` FROM ${seq(froms)}`,
          where,
          sql`)`,
        ]),
      );
      if (link === 'merge') {
        // MERGE .. RETURNING may name the source row: its input number comes back with the inserted row.
        const insert =
          cols.length === 0
            ? raw('INSERT DEFAULT VALUES')
            : sql`INSERT (${join(cols.map(ident), ', ')}) VALUES (${join(
                cols.map((c) => columnOf('m', c)),
                ', ',
              )})`;
        st.ctes.push(
          sql`${ident(name)} AS (MERGE INTO ${table} AS ${ident(target)} USING (SELECT * FROM ${ident(src)} ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN ${insert} RETURNING "m"."__ord", "m"."__pord", ${ident(target)}.*)`,
        );
      } else {
        st.ctes.push(
          sql`${ident(name)} AS (INSERT INTO ${table} AS ${ident(target)} (${join(cols.map(ident), ', ')})${raw(overriding ? ' OVERRIDING SYSTEM VALUE' : '')} SELECT ${join(
            cols.map((c) => columnOf('m', c)),
            ', ',
          )} FROM ${ident(src)} AS "m" ORDER BY "m"."__ord"${conflict} RETURNING *${returning})`,
        );
      }
    } else {
      const colList = cols.length === 0 ? raw('') : sql` (${join(cols.map(ident), ', ')})`;
      st.ctes.push(
        seq([
          sql`${ident(name)} AS (INSERT INTO ${table} AS ${ident(target)}${colList} SELECT ${join(values, ', ')} FROM ${seq(froms)}`,
          where,
          sql` ORDER BY "s"."__ord"${conflict} RETURNING *${returning})`,
        ]),
      );
    }
    const count = sql`(SELECT count(*) FROM ${ident(name)})`;
    st.counts.push(count);
    const updateCheck = level.onConflict?.check ?? null;
    if (level.check !== null) {
      const a = aliases.fresh();
      const rows = marked ? sql` AND ${columnOf(a, INSERTED)}` : raw('');
      st.assertions.push({
        failed: sql`EXISTS (SELECT 1 FROM ${ident(name)} AS ${ident(a)} WHERE (${translateBoolExp(level.check, a, aliases)}) IS NOT TRUE${rows})`,
        code: 'permission-error',
        message: 'check constraint of an insert permission has failed',
      });
    }
    if (marked && updateCheck !== null) {
      const a = aliases.fresh();
      st.assertions.push({
        failed: sql`EXISTS (SELECT 1 FROM ${ident(name)} AS ${ident(a)} WHERE (${translateBoolExp(updateCheck, a, aliases)}) IS NOT TRUE AND NOT ${columnOf(a, INSERTED)})`,
        code: 'permission-error',
        message: 'check constraint of an update permission has failed',
      });
    }
    const inputs = sql`(SELECT "s"."__ord", "s"."__pord", row_number() OVER (ORDER BY "s"."__ord") AS "__rn" FROM ${ident(rowsCte(n))} AS "s"${filter === null ? raw('') : sql` WHERE ${filter}`})`;
    if (link === 'key' && keyed !== null) {
      // Every returned row must carry the key of one input row, else a trigger changed it. Before the skip
      // assertion below, so that its (v2) message wins when both fail.
      const matched = sql`(SELECT count(*) FROM ${ident(name)} AS "i" JOIN ${ident(sourceCte(n, pi))} AS "s" ON ${keyJoin(keyed)})`;
      st.assertions.push({
        failed: sql`${matched} <> ${count}`,
        code: 'unexpected',
        message: `cannot link nested rows: a row ${level.onConflict === null ? 'inserted' : 'upserted'} into table "${level.table.name}" came back without the key it was given (changed by a trigger?)`,
      });
    }
    if (n.linked && maySkip(level.onConflict)) {
      const what = n.children.length > 0 ? 'array relations' : 'object relation';
      st.assertions.push({
        failed: sql`${count} <> (SELECT count(*) FROM ${inputs} AS "s")`,
        code: 'validation-failed',
        message: `cannot proceed to insert ${what} since insert to table "${level.table.name}" affects zero rows`,
      });
    }
    numbered.push({ cte: name, inputs, link, keyed, source: sourceCte(n, pi) });
  });
  if (n.linked || (n.index === 0 && numbered.length > 1)) {
    const parts = numbered.map((j) => {
      if (j.link === 'merge') return sql`SELECT * FROM ${ident(j.cte)}`;
      if (j.link === 'key' && j.keyed !== null) {
        return sql`SELECT "s"."__ord", "s"."__pord", "i".* FROM ${ident(j.cte)} AS "i" JOIN ${ident(j.source)} AS "s" ON ${keyJoin(j.keyed)}`;
      }
      return sql`SELECT "s"."__ord", "s"."__pord", "i".* FROM (SELECT row_number() OVER () AS "__rn", * FROM ${ident(j.cte)}) AS "i" JOIN ${j.inputs} AS "s" ON "s"."__rn" = "i"."__rn"`;
    });
    st.ctes.push(sql`${ident(linkedCte(n))} AS (${join(parts, ' UNION ALL ')})`);
  }
  for (const c of n.children) insertCtes(c.node, { node: n, nested: c.nested }, aliases, st);
}

/** The CTEs writing every level of `ins`. See Note [Nested insert shape]. */
export function translateInsert(ins: ir.Insert, aliases: AliasCounter, target: CompileTarget): TranslatedInsert {
  const root = buildNode(ins.root, false, { n: 0 });
  const ctes: Fragment[] = [];
  rowsCtes(root, ins.rows, ctes);
  const st: Statement = { ctes, counts: [], assertions: [], target };
  insertCtes(root, null, aliases, st);
  const count = st.counts.length === 1 && st.counts[0] !== undefined ? st.counts[0] : sql`(${join(st.counts, ' + ')})`;
  // A lone INSERT's RETURNING rows are in input order already; only several partitions need renumbering.
  const ordered = root.linked || root.level.partitions.length > 1;
  const rootRows = ordered ? linkedCte(root) : insertCte(root, 0);
  return { ctes: st.ctes, count, rootRows, rootOrdered: ordered, assertions: st.assertions };
}

/** `CASE WHEN failed THEN set_config('engine.error', 'code|message', true) END` for each assertion. */
export function assertionColumns(assertions: readonly Assertion[]): Fragment[] {
  return assertions.map((a) => sql`CASE WHEN ${a.failed} THEN set_config('engine.error', ${stringLiteral(errorText(a.code, a.message))}, true) END`);
}
