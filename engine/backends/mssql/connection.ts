/**
 * An MSSQL source connection: tedious connections in a tarn pool (tedious has
 * no pool of its own; tarn is the one the mssql/knex packages use with it)
 * behind the SourceConnection interface.
 *
 * Every statement runs through sp_executesql (tedious' execSql) with its
 * `@pN` parameters typed ({@link tediousParameter}); its answer is the text of
 * the first column of the last result set's rows, concatenated
 * ({@link JsonTextCollector}: Note [FOR JSON rows]). Each pooled connection
 * runs `SET XACT_ABORT ON` once, so any error inside a transaction rolls all
 * of it back (a THROW of a permission check included).
 */
import type Tedious from 'tedious';
import type Tarn from 'tarn';
import { tarn, tedious } from './driver.ts';
import { TransactionStatementError, type BoundStatement, type PoolStats, type RunOptions, type SourceConnection } from '../backend.ts';
import type { ParamType } from '../sql/fragment.ts';
import type { IsolationLevel, MssqlSettings } from './configuration.ts';

type TediousConnection = Tedious.Connection;
type DataType = (typeof Tedious.TYPES)[keyof typeof Tedious.TYPES];

/**
 * Note [FOR JSON rows]
 * SQL Server sends the text of a top-level `FOR JSON` SELECT as several rows
 * of one nvarchar column, about 2033 characters each, split anywhere (inside a
 * string or a number). The compilers wrap their FOR JSON in a scalar subquery,
 * which comes back as one nvarchar(max) value in one row, but the collector
 * does not rely on it: the answer is the concatenation of the first column of
 * every row of the last result set (a batch's earlier statements give none
 * under SET NOCOUNT ON; `columnMetadata` starts a new result set), and null
 * when that set has no row or only a NULL.
 */
export class JsonTextCollector {
  #parts: string[] = [];
  #sawValue = false;

  /** A new result set begins: what came before is not the answer. */
  columns(): void {
    this.#parts = [];
    this.#sawValue = false;
  }

  /** One row's first column. */
  row(value: unknown): void {
    if (value === null || value === undefined) return;
    this.#sawValue = true;
    this.#parts.push(typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value));
  }

  /** The answer: the text, or null for no row or a NULL. */
  text(): string | null {
    return this.#sawValue ? this.#parts.join('') : null;
  }
}

/**
 * The tedious type and value of one parameter. SQL Server converts text to
 * numbers, dates, GUIDs and decimals exactly, so those travel as text (no
 * precision or scale to guess for `decimal`, no time zone lost to a JS Date);
 * integers, floats and bits go as themselves; a list is JSON text (read by
 * OPENJSON: translate/bool-exp.ts); binary is base64 text decoded here.
 */
export function tediousParameter(type: ParamType | null, value: unknown): { type: DataType; value: unknown } {
  const T = tedious().TYPES;
  if (type?.list === true || Array.isArray(value)) return { type: T.NVarChar, value: value === null || value === undefined ? null : JSON.stringify(value) };
  const v = value === undefined ? null : value;
  switch (type?.dbType) {
    case 'bit':
      return { type: T.Bit, value: v };
    case 'tinyint':
      return { type: T.TinyInt, value: v };
    case 'smallint':
      return { type: T.SmallInt, value: v };
    case 'int':
      return { type: T.Int, value: v };
    case 'bigint':
      return { type: T.BigInt, value: v === null ? null : String(v) };
    case 'float':
    case 'real':
      return { type: T.Float, value: v };
    case 'char':
    case 'varchar':
    case 'text':
      // Not NVarChar: comparing a varchar column with nvarchar converts the column (no index seek).
      return { type: T.VarChar, value: v === null ? null : String(v) };
    case 'binary':
    case 'varbinary':
    case 'image':
      return { type: T.VarBinary, value: typeof v === 'string' ? Buffer.from(v, 'base64') : v };
    default:
      break;
  }
  if (typeof v === 'boolean') return { type: T.Bit, value: v };
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 2147483647) return { type: T.Int, value: v };
  if (typeof v === 'number') return { type: T.Float, value: v };
  if (typeof v === 'bigint') return { type: T.BigInt, value: String(v) };
  if (v !== null && typeof v === 'object') return { type: T.NVarChar, value: JSON.stringify(v) };
  return { type: T.NVarChar, value: v === null ? null : String(v) };
}

/** tedious' number for an isolation level (read when a transaction begins: the driver loads lazily). */
function isolation(level: IsolationLevel): number | undefined {
  const L = tedious().ISOLATION_LEVEL;
  const levels: Readonly<Record<IsolationLevel, number | undefined>> = {
    'read-uncommitted': L.READ_UNCOMMITTED,
    'read-committed': L.READ_COMMITTED,
    'repeatable-read': L.REPEATABLE_READ,
    snapshot: L.SNAPSHOT,
    serializable: L.SERIALIZABLE,
  };
  return levels[level];
}

function connectOne(s: MssqlSettings): Promise<TediousConnection> {
  const t = s.target;
  const conn = new (tedious().Connection)({
    server: t.server,
    authentication: { type: 'default', options: { userName: t.user ?? '', password: t.password ?? '' } },
    options: {
      ...(t.port === undefined ? {} : { port: t.port }),
      ...(t.instanceName === undefined ? {} : { instanceName: t.instanceName }),
      ...(t.database === undefined ? {} : { database: t.database }),
      encrypt: t.encrypt,
      trustServerCertificate: t.trustServerCertificate,
      connectTimeout: t.connectTimeoutMs ?? 15_000,
      // ENGINE_GRAPHQL_STATEMENT_TIMEOUT; 0: none.
      requestTimeout: s.statementTimeoutMs,
      rowCollectionOnRequestCompletion: false,
      useColumnNames: false,
    },
  });
  return new Promise((resolve, reject) => {
    conn.connect((err) => {
      if (err !== undefined && err !== null) {
        conn.close();
        reject(err);
        return;
      }
      // XACT_ABORT: an error inside a transaction rolls it back whole (Note [MSSQL mutations]).
      const setup = new (tedious().Request)('SET XACT_ABORT ON;', (e) => {
        if (e !== undefined && e !== null) {
          conn.close();
          reject(e);
        } else resolve(conn);
      });
      conn.execSqlBatch(setup);
    });
  });
}

/** Runs one statement on `conn`; resolves with its JSON text (Note [FOR JSON rows]). */
export function runOn(conn: TediousConnection, stmt: BoundStatement, opts?: RunOptions): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const out = new JsonTextCollector();
    const req = new (tedious().Request)(stmt.text, (err) => {
      opts?.cancel?.unwatch();
      if (err !== undefined && err !== null) reject(err);
      else resolve(out.text());
    });
    stmt.values.forEach((value, i) => {
      const p = tediousParameter(stmt.types?.[i] ?? null, value);
      req.addParameter(`p${i + 1}`, p.type, p.value);
    });
    req.on('columnMetadata', () => out.columns());
    req.on('row', (columns: Array<{ value: unknown }>) => out.row(columns[0]?.value ?? null));
    if (opts?.timeoutMs !== undefined && opts.timeoutMs !== null && opts.timeoutMs > 0) req.setTimeout(opts.timeoutMs);
    // tedious' cancel is in-band (an attention packet): the connection stays usable.
    opts?.cancel?.watch(() => conn.cancel());
    conn.execSql(req);
  });
}

/** Runs one statement on `conn`; resolves with the rows of its last result set, each row's cells in order. */
export function runRowsOn(conn: TediousConnection, stmt: BoundStatement, opts?: RunOptions): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    let rows: unknown[][] = [];
    const req = new (tedious().Request)(stmt.text, (err) => {
      opts?.cancel?.unwatch();
      if (err !== undefined && err !== null) reject(err);
      else resolve(rows);
    });
    stmt.values.forEach((value, i) => {
      const p = tediousParameter(stmt.types?.[i] ?? null, value);
      req.addParameter(`p${i + 1}`, p.type, p.value);
    });
    req.on('columnMetadata', () => {
      rows = [];
    });
    req.on('row', (columns: Array<{ value: unknown }>) => rows.push(columns.map((c) => c.value)));
    if (opts?.timeoutMs !== undefined && opts.timeoutMs !== null && opts.timeoutMs > 0) req.setTimeout(opts.timeoutMs);
    opts?.cancel?.watch(() => conn.cancel());
    conn.execSql(req);
  });
}

function txCall(run: (cb: (err?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((err) => (err === undefined || err === null ? resolve() : reject(err))));
}

/** A transaction held on one pooled connection ({@link MssqlConnection.openTransaction}). */
export interface MssqlTransaction {
  /** Runs `f` on the connection once the transaction's earlier calls are done (a batch of the user's SQL: run-sql.ts). */
  run<T>(f: (conn: TediousConnection) => Promise<T>): Promise<T>;
  /** One statement's JSON text (Note [FOR JSON rows]). */
  query(stmt: BoundStatement): Promise<string | null>;
  /** SAVE TRANSACTION `name`. */
  save(name: string): Promise<void>;
  /** ROLLBACK TRANSACTION `name`: back to the savepoint, the transaction stays open. */
  rollbackTo(name: string): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** A pool of tedious connections to one source. */
export class MssqlConnection implements SourceConnection {
  readonly kind = 'mssql';
  readonly maxConnections: number;
  readonly settings: MssqlSettings;
  readonly #pool: Tarn.Pool<TediousConnection>;

  constructor(settings: MssqlSettings) {
    this.settings = settings;
    this.maxConnections = settings.maxConnections;
    this.#pool = new (tarn().Pool)<TediousConnection>({
      create: () => connectOne(settings),
      destroy: (c) => c.close(),
      // A connection tedious closed (network, server) is not handed out again.
      validate: (c) => !(c as unknown as { closed?: boolean }).closed,
      min: 0,
      max: settings.maxConnections,
      idleTimeoutMillis: settings.idleTimeoutMs,
      acquireTimeoutMillis: settings.target.connectTimeoutMs ?? 30_000,
      createTimeoutMillis: settings.target.connectTimeoutMs ?? 30_000,
      propagateCreateError: true,
    });
  }

  async #with<T>(f: (c: TediousConnection) => Promise<T>): Promise<T> {
    const c = await this.#pool.acquire().promise;
    try {
      return await f(c);
    } finally {
      this.#pool.release(c);
    }
  }

  async queryJsonText(stmt: BoundStatement, opts?: RunOptions): Promise<string | null> {
    return await this.#with((c) => runOn(c, stmt, opts));
  }

  /** One statement's rows, each a list of cells (multiplexed live queries: live-query.ts). */
  async queryRows(stmt: BoundStatement, opts?: RunOptions): Promise<unknown[][]> {
    return await this.#with((c) => runRowsOn(c, stmt, opts));
  }

  async transactionJsonText(stmts: readonly BoundStatement[], opts?: RunOptions): Promise<(string | null)[]> {
    return await this.#with(async (c) => {
      await txCall((cb) => c.beginTransaction(cb, '', isolation(this.settings.isolationLevel)));
      const out: (string | null)[] = [];
      for (const [i, s] of stmts.entries()) {
        try {
          out.push(await runOn(c, s, opts));
        } catch (e) {
          // XACT_ABORT has rolled back on most errors already; a ROLLBACK then fails harmlessly.
          await txCall((cb) => c.rollbackTransaction(cb)).catch(() => undefined);
          throw new TransactionStatementError(i, e);
        }
      }
      await txCall((cb) => c.commitTransaction(cb));
      return out;
    });
  }

  /**
   * A transaction on a connection taken from the pool until it ends
   * (`mssql_run_sql`, Note [Effects] in metadata/effects.ts). `commit` and
   * `rollback` give the connection back; `rollback` never throws (after an
   * error XACT_ABORT has rolled back already, and its ROLLBACK fails).
   */
  async openTransaction(): Promise<MssqlTransaction> {
    const c = await this.#pool.acquire().promise;
    let open = true;
    const end = async (how: (cb: (err?: Error | null) => void) => void): Promise<void> => {
      if (!open) return;
      open = false;
      try {
        await txCall(how);
      } finally {
        this.#pool.release(c);
      }
    };
    try {
      await txCall((cb) => c.beginTransaction(cb, '', isolation(this.settings.isolationLevel)));
    } catch (e) {
      open = false;
      this.#pool.release(c);
      throw e;
    }
    // tedious runs one request at a time on a connection: the transaction's calls wait their turn.
    let last: Promise<unknown> = Promise.resolve();
    const run = <T>(f: (conn: TediousConnection) => Promise<T>): Promise<T> => {
      const next = last.then(() => f(c));
      last = next.catch(() => undefined);
      return next;
    };
    return {
      run,
      query: (stmt) => run((conn) => runOn(conn, stmt)),
      save: (name) => run((conn) => txCall((cb) => conn.saveTransaction(cb, name))),
      rollbackTo: (name) => run((conn) => txCall((cb) => conn.rollbackTransaction(cb, name))),
      commit: () => run(() => end((cb) => c.commitTransaction(cb))),
      rollback: () => run(() => end((cb) => c.rollbackTransaction(cb))).catch(() => undefined),
    };
  }

  async ping(): Promise<void> {
    await this.queryJsonText({ text: 'SELECT 1', values: [] });
  }

  poolStats(): PoolStats {
    return { total: this.#pool.numUsed() + this.#pool.numFree(), idle: this.#pool.numFree(), waiting: this.#pool.numPendingAcquires() };
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}
