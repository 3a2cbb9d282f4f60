/**
 * The DDL stamp of a PostgreSQL source: a short text that changes
 * whenever DDL changes something introspection reports, cheap enough to ask
 * for before every metadata call. See Note [Introspection freshness] in
 * ../source-preparer.ts for when it is asked and what follows.
 */
import { queryFirstText, type PgQueryable } from './connection.ts';

/*
 * Note [DDL stamp]
 * Every row PostgreSQL writes carries the id of the transaction that wrote it
 * (`xmin`); DDL inserts, updates or deletes rows of the system catalogs. Per
 * catalog the stamp keeps the row count and the sum of the rows' `xmin`, over
 * the rows introspection depends on: relations, columns, keys, views' rules
 * and user triggers (which decide a view's mutability) of the user schemas,
 * functions and types of those schemas, enum labels, comments, and the
 * schemas themselves. A change goes unseen only if the rows it removed and
 * the rows it added have equal counts and equal xmin sums; the added rows'
 * xids are newer than every removed row's, so the sums differ (short of
 * 4 billion transactions' wraparound). VACUUM and ANALYZE update pg_class in
 * place without a new xmin, so they do not count as changes; a rewrite that
 * does change xmins (VACUUM FULL of a catalog) only costs one re-read.
 * Temporary schemas are left out as introspection leaves them out, so an
 * application's temporary tables do not make every call re-read.
 * An event trigger on `ddl_command_end` would say the same for free, but it
 * needs a superuser to create, and the engine's database user often is not.
 * Its cost at 2,000 tables (5 columns and up to 2 foreign keys each) is in
 * Note [Introspection freshness] in ../source-preparer.ts; most of it is the
 * pg_attribute part (one index probe per relation), so only user columns
 * (attnum > 0) are counted: system columns come and go with their relation.
 */

/** The same schema filter as introspection (introspect.ts): user schemas only. */
const USER_SCHEMAS = `SELECT oid FROM pg_catalog.pg_namespace
    WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'engine_metadata')
      AND nspname NOT LIKE 'pg\\_toast%' AND nspname NOT LIKE 'pg\\_temp\\_%'`;

/** Count and xmin sum of the rows of `from` (a FROM clause with its conditions). */
const part = (from: string): string => `(SELECT count(*) || '.' || coalesce(sum(x.xmin::text::int8), 0) FROM ${from})`;

/** One text value: the stamp. Evaluated in the statement's snapshot. */
export const DDL_STAMP_SQL = `
WITH ns AS (${USER_SCHEMAS}),
rel AS (SELECT c.oid FROM pg_catalog.pg_class c
        WHERE c.relnamespace IN (SELECT oid FROM ns) AND c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition)
SELECT concat_ws(' ',
  ${part('pg_catalog.pg_namespace x WHERE x.oid IN (SELECT oid FROM ns)')},
  ${part('pg_catalog.pg_class x WHERE x.oid IN (SELECT oid FROM rel)')},
  ${part('pg_catalog.pg_attribute x WHERE x.attrelid IN (SELECT oid FROM rel) AND x.attnum > 0')},
  ${part('pg_catalog.pg_constraint x WHERE x.conrelid IN (SELECT oid FROM rel)')},
  ${part('pg_catalog.pg_rewrite x WHERE x.ev_class IN (SELECT oid FROM rel)')},
  ${part('pg_catalog.pg_trigger x WHERE x.tgrelid IN (SELECT oid FROM rel) AND NOT x.tgisinternal')},
  ${part('pg_catalog.pg_proc x WHERE x.pronamespace IN (SELECT oid FROM ns)')},
  ${part('pg_catalog.pg_type x WHERE x.typnamespace IN (SELECT oid FROM ns)')},
  ${part('pg_catalog.pg_enum x')},
  ${part('pg_catalog.pg_description x')})`;

/**
 * pg_control_* run through query_to_xml: a function the statement names is
 * checked for EXECUTE when the statement starts, even in a CASE branch never
 * taken, so naming them directly failed the whole introspection of a user
 * they were revoked from; query_to_xml runs its text only when called.
 */
const CONTROL_QUERY = `'SELECT s.system_identifier || ''/'' || c.timeline_id AS i FROM pg_catalog.pg_control_system() s, pg_catalog.pg_control_checkpoint() c'`;

/*
 * Note [Database identity]
 * A stored introspection (Note [Stored introspection] in ../source-preparer.ts)
 * is used only for the database it was read from. The same URL may reach
 * another one later, and a stamp alone cannot tell them apart: a copy made
 * with CREATE DATABASE .. TEMPLATE, or two clusters restored from one dump
 * by the same steps, have equal catalogs down to their xmins. So the identity
 * is the cluster's `system_identifier` (random at initdb, kept by physical
 * replicas and base backups, new after a dump/restore or pg_upgrade), its
 * timeline (a promoted replica or a point-in-time recovery starts a new one:
 * transaction ids after it may repeat ids of the old timeline, so equal
 * stamps would prove nothing), the database's oid and name, and the server
 * version (a minor upgrade keeps the rest; `serverVersion` is stored). A
 * replica that takes over is byte for byte its primary, so only its new
 * timeline costs one re-read. Where pg_control_* may not be run (a managed
 * server can revoke them), the identity is null and nothing is stored.
 */
const IDENTITY_SQL = `
SELECT CASE WHEN ctl.i IS NOT NULL THEN concat_ws('/', ctl.i, d.oid, md5(d.datname), current_setting('server_version_num')) END
FROM pg_catalog.pg_database d,
  LATERAL (SELECT CASE WHEN has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')
                        AND has_function_privilege('pg_catalog.pg_control_checkpoint()', 'EXECUTE')
    THEN substring(pg_catalog.query_to_xml(${CONTROL_QUERY}, false, true, '')::text FROM '<i>([^<]*)</i>') END AS i) ctl
WHERE d.datname = pg_catalog.current_database()`;

/** Text of the identity (Note [Database identity]), '' when unknown; no newline (the name is hashed). */
export const DATABASE_IDENTITY_SQL = `coalesce((${IDENTITY_SQL}), '')`;

/** The identity and the stamp of the database behind `q`, in one statement. */
export async function databaseState(q: PgQueryable): Promise<{ identity: string | null; ddlStamp: string }> {
  const both = (await queryFirstText(q, `SELECT ${DATABASE_IDENTITY_SQL} || E'\\n' || (${DDL_STAMP_SQL})`)) ?? '';
  const cut = both.indexOf('\n');
  const identity = both.slice(0, cut);
  return { identity: identity === '' ? null : identity, ddlStamp: both.slice(cut + 1) };
}

/** The stamp of the database behind `q`. */
export async function ddlStamp(q: PgQueryable): Promise<string> {
  return (await queryFirstText(q, DDL_STAMP_SQL)) ?? '';
}
