/**
 * The set-up every schema module of test/support/ shares: a fresh database with a schema,
 * a real engine over it, optionally the metadata call that tracks the schema, and one close.
 */
import type { Settings } from '../../engine/cli/settings.ts';
import { startTestEngine, type TestEngine } from './engine.ts';
import { createTestDatabase, type TestDatabase } from './pg.ts';

/** A database with its schema loaded and an engine over it. */
export interface SeededEngine {
  readonly db: TestDatabase;
  readonly engine: TestEngine;
  /** Stops the engine, then drops the database. */
  close(): Promise<void>;
}

/** What {@link startSeededEngine} sets up. */
export interface SeedOptions {
  /** Prefix of the database name (shows which test made it). */
  readonly prefix: string;
  /** SQL run on the fresh database before the engine starts. */
  readonly sql: string;
  /** Engine settings besides the database URL; a function may derive them from the database. */
  readonly settings?: Partial<Settings> | ((db: TestDatabase) => Promise<Partial<Settings>>);
  /** A /v1/metadata body that must answer 200 (tracking the schema), sent once the engine is up. */
  readonly track?: unknown;
}

/** Creates the database, loads `sql`, starts the engine and sends `track`. */
export async function startSeededEngine(o: SeedOptions): Promise<SeededEngine> {
  const db = await createTestDatabase(o.prefix);
  await db.sql(o.sql);
  const settings = typeof o.settings === 'function' ? await o.settings(db) : (o.settings ?? {});
  const engine = await startTestEngine({ databaseUrl: db.url, ...settings });
  const close = async (): Promise<void> => {
    await engine.close();
    await db.drop();
  };
  if (o.track !== undefined) {
    const r = await engine.metadata(o.track);
    if (r.status !== 200) {
      await close();
      throw new Error(`tracking failed: ${r.text}`);
    }
  }
  return { db, engine, close };
}
