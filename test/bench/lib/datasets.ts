/**
 * Data sets: the original Chinook (where ../shared/data/chinook exists) and
 * the generator's at scale factors. Each gets its own database, the
 * PostGraphile customer policies, and an engine with its metadata applied.
 */
import { chinookBulkFiles, chinookPresent, chinookSql } from '../data/chinook.ts';
import { generateChinookSql, scaleCounts } from '../data/generate.ts';
import { customerRlsSql } from '../peers/postgraphile-rls.ts';
import { finishMetadata, generatedTableEntries, metadataCall } from './engine-metadata.ts';
import { startEngine, type BenchEngine } from './engine.ts';
import type { BenchPostgres } from './postgres.ts';

/** A data set name: `chinook` or `sf<N>`. */
export type DatasetName = string;

/** A loaded data set with its configured engine. */
export interface Dataset {
  readonly name: DatasetName;
  readonly databaseUrl: string;
  readonly engine: BenchEngine;
  /** How many tracks it holds (a size hint for the report). */
  readonly tracks: number;
  readonly loadMs: number;
}

/** Parses `chinook,sf1,sf10` into names; unknown names are errors. */
export function parseDatasets(list: string): DatasetName[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const n of names) if (n !== 'chinook' && !/^sf[1-9]\d*$/.test(n)) throw new Error(`unknown data set "${n}" (chinook or sf<N>)`);
  return names;
}

/** Whether a data set can be made on this machine (Chinook needs the shared folder). */
export function datasetAvailable(name: DatasetName): boolean {
  return name !== 'chinook' || chinookPresent();
}

/** Creates, fills and tracks one data set; `nodeArgs` go to the engine process. */
export async function loadDataset(pg: BenchPostgres, name: DatasetName, poolMax: number, nodeArgs: readonly string[] = []): Promise<Dataset> {
  const started = performance.now();
  const db = `bench_${name}`;
  const databaseUrl = await pg.createDatabase(db);
  let tracks: number;
  if (name === 'chinook') {
    await pg.sql(db, await chinookSql());
    tracks = 3503;
  } else {
    const scale = Number(name.slice(2));
    await pg.sql(db, generateChinookSql(scale));
    tracks = scaleCounts(scale).tracks;
  }
  await pg.sql(db, customerRlsSql());
  // Settle the fresh data before anything is timed: otherwise autovacuum (the inserts pass its
  // threshold) and the checkpoint of the load run during the first cells and tax whichever peer is
  // measured then (seen as an Engine/raw swing of 0.75-0.92 on AlbumByPK right after sf10 loads).
  await pg.sql(db, 'VACUUM (FREEZE, ANALYZE)');
  // The freezing pass leaves the visibility map unset on the pages it froze (PostgreSQL 18:
  // 0 of 45 tracks pages all-visible after it, 45 after this second pass), so index-only scans
  // went to the heap (ArtistAggregates' album counts: 161 heap fetches a request) until a change
  // brought autovacuum back; a table in service is all-visible once autovacuum has passed twice.
  await pg.sql(db, 'VACUUM');
  await pg.sql(db, 'CHECKPOINT');
  const engine = await startEngine(databaseUrl, nodeArgs);
  try {
    if (name === 'chinook') {
      for (const f of await chinookBulkFiles()) await metadataCall(engine.url, f.text);
      await finishMetadata(engine.url, poolMax);
    } else {
      await finishMetadata(engine.url, poolMax, generatedTableEntries());
    }
  } catch (e) {
    await engine.stop();
    throw e;
  }
  return { name, databaseUrl, engine, tracks, loadMs: performance.now() - started };
}
