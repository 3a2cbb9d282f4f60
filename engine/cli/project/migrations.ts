/**
 * SQL migrations in v2's layout: `migrations/<database>/<version>_<name>/up.sql` and `down.sql`,
 * `<version>` a millisecond timestamp. Each runs through `run_sql` (one transaction on
 * PostgreSQL), and the versions applied are recorded in the engine's metadata database.
 *
 * Note [Where applied migrations are recorded]
 * v2's client (config version 3) keeps them in the server's catalog state, `cli_state.migrations`:
 * `{<database>: {<version>: <dirty>}}`, read with `get_catalog_state` and written with
 * `set_catalog_state` of type `cli`. The engine keeps the catalog state in its metadata database
 * (engine_metadata.catalog_state), so the record survives a source database being restored and
 * is shared by every engine of one metadata database, and a v2 project's state moves with
 * `hasura`-style tooling. A migration's version is recorded only after its `run_sql` succeeded,
 * and never with `dirty: true`: a failed migration's transaction rolls back and the record is left
 * as it was, so the database and the record agree. The one gap is a failure between the two calls
 * (the engine stops after the SQL committed): the run then says so, and
 * `engine migrate apply --version V --skip-execution` records the version without running it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineApi } from './engine-api.ts';
import { databaseMessage, StepError, UsageError, type Io } from './output.ts';

/** One migration directory. */
export interface LocalMigration {
  readonly version: string;
  readonly name: string;
  readonly dir: string;
  readonly up: string | null;
  readonly down: string | null;
}

type CliState = Record<string, unknown> & { migrations?: Record<string, Record<string, boolean>> };

/** A new version: the current time in milliseconds, after every existing one. */
export function newVersion(existing: readonly string[] = []): string {
  let v = BigInt(Date.now());
  for (const e of existing) if (BigInt(e) >= v) v = BigInt(e) + 1n;
  return v.toString();
}

function byVersion(a: { version: string }, b: { version: string }): number {
  const x = BigInt(a.version);
  const y = BigInt(b.version);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The migrations of one database, oldest first. */
export async function localMigrations(migrationsDir: string, database: string): Promise<LocalMigration[]> {
  const dir = path.join(migrationsDir, database);
  if (!existsSync(dir)) return [];
  const out: LocalMigration[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const m = /^(\d+)(?:_(.*))?$/.exec(e.name);
    if (m === null) continue;
    const d = path.join(dir, e.name);
    const read = async (f: string): Promise<string | null> => (existsSync(path.join(d, f)) ? await readFile(path.join(d, f), 'utf8') : null);
    const up = await read('up.sql');
    const down = await read('down.sql');
    if (up === null && down === null && (existsSync(path.join(d, 'up.yaml')) || existsSync(path.join(d, 'down.yaml')))) {
      throw new UsageError(
        `${d} holds up.yaml/down.yaml (v2's config version 1 migrations); only up.sql/down.sql are supported: move its metadata steps to the metadata directory`,
      );
    }
    out.push({ version: m[1] ?? '', name: m[2] ?? '', dir: d, up, down });
  }
  const seen = new Set<string>();
  for (const m of out) {
    if (seen.has(m.version)) throw new UsageError(`two migrations of database ${database} have version ${m.version}: give one a new version`);
    seen.add(m.version);
  }
  return out.sort(byVersion);
}

/** The databases with a migrations directory. */
export async function migrationDatabases(migrationsDir: string): Promise<string[]> {
  if (!existsSync(migrationsDir)) return [];
  return (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Writes a new migration; answers its directory. */
export async function createMigration(
  migrationsDir: string,
  database: string,
  name: string,
  up: string,
  down: string,
): Promise<{ version: string; dir: string }> {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new UsageError(`migration name "${name}" may hold only letters, digits, "_" and "-"`);
  const existing = (await localMigrations(migrationsDir, database)).map((m) => m.version);
  const version = newVersion(existing);
  const dir = path.join(migrationsDir, database, `${version}_${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'up.sql'), up);
  await writeFile(path.join(dir, 'down.sql'), down);
  return { version, dir };
}

/** The recorded versions of `database` (clean ones only: a dirty one was never finished). */
export function appliedVersions(state: CliState, database: string): Set<string> {
  const m = state.migrations?.[database] ?? {};
  return new Set(Object.keys(m));
}

function withVersion(state: CliState, database: string, version: string, applied: boolean): CliState {
  const migrations = { ...(state.migrations ?? {}) };
  const db = { ...(migrations[database] ?? {}) };
  if (applied) db[version] = false;
  else delete db[version];
  migrations[database] = db;
  return {
    ...state,
    migrations,
    isStateCopyCompleted: true,
    settings: (state['settings'] as Record<string, string> | undefined) ?? { migration_mode: 'true' },
  };
}

/** Which migrations to run: v2's `migrate apply` flags. */
export interface ApplyPlanFlags {
  readonly up?: string;
  readonly down?: string;
  readonly goto?: string;
  readonly version?: string;
  readonly type?: string;
}

/** One step of a plan. */
export interface Step {
  readonly migration: LocalMigration;
  readonly direction: 'up' | 'down';
}

function count(v: string, flag: string, max: number): number {
  if (v === 'all') return max;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`${flag} takes a positive number or "all", not "${v}"`);
  return Number(v);
}

/** The steps the flags ask for, given the local migrations and the applied versions. */
export function planSteps(local: readonly LocalMigration[], applied: ReadonlySet<string>, flags: ApplyPlanFlags, database: string): Step[] {
  const given = ['up', 'down', 'goto', 'version'].filter((k) => flags[k as keyof ApplyPlanFlags] !== undefined);
  if (given.length > 1) throw new UsageError(`give only one of --${given.join(', --')}`);
  const pending = local.filter((m) => !applied.has(m.version));
  const done = local.filter((m) => applied.has(m.version)).reverse();
  const find = (v: string): LocalMigration => {
    const m = local.find((x) => x.version === v);
    if (m === undefined) throw new UsageError(`database ${database} has no migration with version ${v} under its migrations directory`);
    return m;
  };
  if (flags.version !== undefined) {
    const direction = flags.type ?? 'up';
    if (direction !== 'up' && direction !== 'down') throw new UsageError(`--type is "up" or "down", not "${direction}"`);
    return [{ migration: find(flags.version), direction }];
  }
  if (flags.down !== undefined) return done.slice(0, count(flags.down, '--down', done.length)).map((migration) => ({ migration, direction: 'down' as const }));
  if (flags.goto !== undefined) {
    const target = BigInt(find(flags.goto).version);
    return [
      ...done.filter((m) => BigInt(m.version) > target).map((migration) => ({ migration, direction: 'down' as const })),
      ...pending.filter((m) => BigInt(m.version) <= target).map((migration) => ({ migration, direction: 'up' as const })),
    ];
  }
  const n = flags.up === undefined ? pending.length : count(flags.up, '--up', pending.length);
  return pending.slice(0, n).map((migration) => ({ migration, direction: 'up' as const }));
}

/** What one database's apply did. */
export interface ApplyReport {
  readonly database: string;
  readonly applied: ReadonlyArray<{ version: string; name: string; direction: 'up' | 'down'; ms: number }>;
}

/**
 * Runs `steps` on `database` in order, recording each as it succeeds; the first failure stops
 * the run with a StepError naming the migration and the database's error. See Note [Where applied
 * migrations are recorded].
 */
export async function runSteps(
  api: EngineApi,
  io: Io,
  database: string,
  kind: string,
  steps: readonly Step[],
  opts: { skipExecution: boolean; dryRun: boolean },
): Promise<ApplyReport> {
  const applied: Array<{ version: string; name: string; direction: 'up' | 'down'; ms: number }> = [];
  if (steps.length === 0) return { database, applied };
  let state = (await api.cliState()) as CliState;
  for (const [i, { migration, direction }] of steps.entries()) {
    const label = `${migration.version}_${migration.name}`.replace(/_$/, '');
    const sql = direction === 'up' ? migration.up : migration.down;
    io.progress(`[${i + 1}/${steps.length}] ${direction} ${label} on database ${database}${opts.dryRun ? ' (dry run)' : ''}`);
    if (opts.dryRun) {
      applied.push({ version: migration.version, name: migration.name, direction, ms: 0 });
      continue;
    }
    if (sql === null && !opts.skipExecution) {
      throw new StepError(
        `migration ${label} of database ${database} has no ${direction}.sql in ${migration.dir}: write one, or use --skip-execution to only record it`,
        {
          database,
          version: migration.version,
          direction,
        },
      );
    }
    const started = performance.now();
    if (!opts.skipExecution && sql !== null && sql.trim() !== '') {
      try {
        await api.runSql(database, kind, sql);
      } catch (e) {
        const why = databaseMessage(e);
        throw new StepError(
          `migration ${label} (${direction}) failed on database ${database}: ${why}\n` +
            `Nothing of it was applied and its version was not recorded${applied.length > 0 ? `; the ${applied.length} migration(s) before it were` : ''}. Fix ${path.join(migration.dir, `${direction}.sql`)} and run the command again.`,
          { database, version: migration.version, name: migration.name, direction, error: why, applied, body: (e as { body?: unknown }).body },
        );
      }
    }
    try {
      state = withVersion(state, database, migration.version, direction === 'up');
      await api.setCliState(state);
    } catch (e) {
      throw new StepError(
        `migration ${label} (${direction}) ran on database ${database}, but recording it failed: ${(e as Error).message}\n` +
          `Record it without running it again: engine migrate apply --version ${migration.version} --type ${direction} --skip-execution --database-name ${database}`,
        { database, version: migration.version, direction, recorded: false },
      );
    }
    const ms = Math.round(performance.now() - started);
    applied.push({ version: migration.version, name: migration.name, direction, ms });
    io.progress(`      done in ${ms} ms`);
  }
  return { database, applied };
}

/** One row of `migrate status`. */
export interface StatusRow {
  readonly database: string;
  readonly version: string;
  readonly name: string;
  readonly sourceStatus: 'Present' | 'Not Present';
  readonly databaseStatus: 'Present' | 'Not Present';
}

/** v2's `migrate status` rows: every local or recorded version. */
export function statusRows(database: string, local: readonly LocalMigration[], applied: ReadonlySet<string>): StatusRow[] {
  const versions = new Map<string, string>();
  for (const m of local) versions.set(m.version, m.name);
  for (const v of applied) if (!versions.has(v)) versions.set(v, '');
  return [...versions.entries()]
    .map(([version, name]) => ({ version, name }))
    .sort(byVersion)
    .map(({ version, name }) => ({
      database,
      version,
      name,
      sourceStatus: local.some((m) => m.version === version) ? ('Present' as const) : ('Not Present' as const),
      databaseStatus: applied.has(version) ? ('Present' as const) : ('Not Present' as const),
    }));
}

/** `migrate squash`: the migrations from `from` on become one; answers the new one's version. */
export async function squash(
  api: EngineApi,
  migrationsDir: string,
  database: string,
  from: string,
  name: string,
  deleteSource: boolean,
): Promise<{ version: string; squashed: string[]; dir: string }> {
  const local = await localMigrations(migrationsDir, database);
  const start = local.findIndex((m) => m.version === from);
  if (start < 0) throw new UsageError(`database ${database} has no migration with version ${from}`);
  const parts = local.slice(start);
  const up = parts.map((m) => `-- ${path.basename(m.dir)}\n${(m.up ?? '').trimEnd()}\n`).join('\n');
  const down = [...parts]
    .reverse()
    .map((m) => `-- ${path.basename(m.dir)}\n${(m.down ?? '').trimEnd()}\n`)
    .join('\n');
  const version = newVersion(local.map((m) => m.version));
  const dir = path.join(migrationsDir, database, `${version}_${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'up.sql'), up);
  await writeFile(path.join(dir, 'down.sql'), down);
  // The squashed migration counts as applied when every part was; deleted parts are forgotten.
  let state = (await api.cliState()) as CliState;
  const applied = appliedVersions(state, database);
  const allApplied = parts.every((m) => applied.has(m.version));
  if (allApplied) state = withVersion(state, database, version, true);
  if (deleteSource) for (const m of parts) state = withVersion(state, database, m.version, false);
  if (allApplied || deleteSource) await api.setCliState(state);
  if (deleteSource) for (const m of parts) await rm(m.dir, { recursive: true, force: true });
  return { version, squashed: parts.map((m) => m.version), dir };
}

/** `migrate delete`: forgets versions locally and/or in the record. */
export async function deleteMigrations(
  api: EngineApi,
  migrationsDir: string,
  database: string,
  opts: { version?: string; all: boolean; serverOnly: boolean },
): Promise<string[]> {
  if ((opts.version === undefined) === !opts.all) throw new UsageError('give --version V or --all');
  const local = await localMigrations(migrationsDir, database);
  let state = (await api.cliState()) as CliState;
  const recorded = appliedVersions(state, database);
  const versions = opts.all ? [...new Set([...local.map((m) => m.version), ...recorded])] : [opts.version ?? ''];
  if (!opts.all && !local.some((m) => m.version === opts.version) && !recorded.has(opts.version ?? '')) {
    throw new UsageError(`database ${database} has no migration with version ${opts.version}, locally or recorded`);
  }
  for (const v of versions) state = withVersion(state, database, v, false);
  await api.setCliState(state);
  if (!opts.serverOnly) for (const m of local) if (versions.includes(m.version)) await rm(m.dir, { recursive: true, force: true });
  return versions;
}
