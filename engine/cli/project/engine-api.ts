/**
 * The calls the project commands make, over the shared metadata client (../../metadata-client/):
 * the wire form of the document (the directory layout is written from it unchanged), `run_sql` on
 * `/v2/query`, and the catalog state where migration versions are recorded.
 */
import { EngineClient, type InconsistentObject } from '../../metadata-client/client.ts';
import type { ProjectConfig } from './config.ts';

type Obj = Record<string, unknown>;

/** What `run_sql` answers. */
export interface SqlResult {
  readonly result_type: string;
  readonly result?: readonly (readonly (string | null)[])[];
}

/** `replace_metadata`'s answer, as v2 gives it with inconsistencies allowed. */
export interface ApplyAnswer {
  readonly isConsistent: boolean;
  readonly inconsistentObjects: readonly InconsistentObject[];
}

/** The engine a project command talks to. */
export class EngineApi {
  readonly client: EngineClient;

  constructor(cfg: Pick<ProjectConfig, 'endpoint' | 'adminSecret'>, timeoutMs = 600_000) {
    this.client = new EngineClient({ url: cfg.endpoint, adminSecret: cfg.adminSecret, timeoutMs });
  }

  /** `export_metadata` (version 2): the wire document and its resource_version. */
  async exportMetadata(): Promise<{ resourceVersion: number; metadata: Obj }> {
    const r = await this.client.call<{ resource_version: number; metadata: Obj }>({ type: 'export_metadata', version: 2, args: {} });
    return { resourceVersion: r.resource_version, metadata: r.metadata };
  }

  /** `replace_metadata` (version 2); refused by the engine when inconsistent and not allowed. */
  async replaceMetadata(metadata: Obj, allowInconsistent: boolean): Promise<ApplyAnswer> {
    const r = await this.client.call<{ is_consistent?: boolean; inconsistent_objects?: InconsistentObject[] } | null>({
      type: 'replace_metadata',
      version: 2,
      args: { allow_inconsistent_metadata: allowInconsistent, metadata },
    });
    return { isConsistent: r?.is_consistent ?? true, inconsistentObjects: r?.inconsistent_objects ?? [] };
  }

  /** `get_inconsistent_metadata`. */
  async inconsistencies(): Promise<ApplyAnswer> {
    const r = await this.client.getInconsistentMetadata();
    return { isConsistent: r.isConsistent, inconsistentObjects: r.inconsistentObjects };
  }

  /** Any metadata call. */
  async metadata<T = unknown>(type: string, args: Obj = {}): Promise<T> {
    return await this.client.call<T>({ type, args });
  }

  /** `run_sql` on `source` (one transaction on PostgreSQL), through `/v2/query`. */
  async runSql(source: string, kind: string, sql: string): Promise<SqlResult> {
    const type = kind === 'postgres' || kind === 'pg' ? 'run_sql' : `${kind}_run_sql`;
    return await this.client.call<SqlResult>({ type, args: { source, sql, cascade: false, read_only: false } }, '/v2/query');
  }

  /** `/v1alpha1/pg_dump` of a postgres source: pg_dump's SQL text (the engine answers `application/sql`). */
  async pgDump(source: string, opts: readonly string[], clean: boolean): Promise<string> {
    const r = await this.client.call<unknown>({ source, opts, clean_output: clean }, '/v1alpha1/pg_dump');
    return typeof r === 'string' ? r : r === null ? '' : JSON.stringify(r);
  }

  /** `get_catalog_state`: the `cli_state` the client keeps in the engine's metadata database. */
  async cliState(): Promise<Obj> {
    const r = await this.client.call<{ cli_state?: Obj | null }>({ type: 'get_catalog_state', args: {} });
    return r.cli_state ?? {};
  }

  /** `set_catalog_state` of type `cli`. */
  async setCliState(state: Obj): Promise<void> {
    await this.client.call({ type: 'set_catalog_state', args: { type: 'cli', state } });
  }
}
