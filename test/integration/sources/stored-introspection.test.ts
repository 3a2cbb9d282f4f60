/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * A restart takes the source's introspection from the metadata database while
 * the source's DDL stamp and identity say it is still current, and reads the
 * source afresh otherwise (Note [Stored introspection] in
 * engine/backends/source-preparer.ts). That the stored introspection is used
 * shows through behaviour: a row edited in the store (checksum made again)
 * shows in the GraphQL schema of the restarted engine.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildEngine, type BuiltEngine } from '../../../engine/boot.ts';
import { defaultSettings } from '../../../engine/cli/settings.ts';
import { createLogger } from '../../../engine/logger.ts';
import { ddlStamp } from '../../../engine/backends/postgres/ddl-stamp.ts';
import { introspectPostgres } from '../../../engine/backends/postgres/introspect.ts';
import { introspectionText, parseIntrospectionText } from '../../../engine/backends/stored-introspection.ts';
import { sameData } from '../../../engine/catalog/intern.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { eventually } from '../../support/eventually.ts';

let src: TestDatabase;
let meta: TestDatabase;
/** Databases renamed away by a test, dropped at the end. */
const extra: string[] = [];
/** A role made by a test, dropped at the end. */
let role: string | null = null;

beforeAll(async () => {
  src = await createTestDatabase('intro');
  meta = await createTestDatabase('intro_md');
  await src.sql(`
    CREATE TABLE authors (id int PRIMARY KEY, name text);
    COMMENT ON COLUMN authors.name IS 'the name';
    INSERT INTO authors VALUES (1, 'Ann');
  `);
});
afterAll(async () => {
  await src?.drop();
  await meta?.drop();
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  try {
    for (const name of extra) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    if (role !== null) await admin.query(`DROP ROLE IF EXISTS "${role}"`);
  } finally {
    await admin.end();
  }
});

interface Started {
  readonly engine: BuiltEngine;
  readonly url: string;
  /** The `detail.message` of every log line so far, with the line. */
  readonly lines: Array<{ message: unknown; level: unknown; detail: any }>;
  gql(query: string): Promise<any>;
  md(type: string, args: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

async function start(databaseUrl: string = src.url, metadataDatabaseUrl: string = meta.url): Promise<Started> {
  const lines: Started['lines'] = [];
  const engine = await buildEngine(
    defaultSettings({ databaseUrl, metadataDatabaseUrl, logLevel: 'info' }),
    createLogger({
      level: 'info',
      enabledLogTypes: [],
      write: (l) => {
        const o = JSON.parse(l) as { level: unknown; detail: any };
        lines.push({ message: o.detail?.message, level: o.level, detail: o.detail });
      },
    }),
  );
  const url = await engine.app.listen({ port: 0, host: '127.0.0.1' });
  const post = async (path: string, body: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  return {
    engine,
    url,
    lines,
    gql: async (query) => (await post('/v1/graphql', { query })).body,
    md: (type, args) => post('/v1/metadata', { type, args }),
    close: () => engine.close(),
  };
}

const READ_BACK = 'introspection read from the metadata database';

interface Row {
  source_key: string;
  database_identity: string;
  format: string;
  ddl_stamp: string;
  checksum: string;
  introspection: string;
}

async function rows(db: TestDatabase = meta): Promise<Row[]> {
  return (await db.sql('SELECT * FROM engine_metadata.source_introspection')).rows as Row[];
}

async function stampOf(db: TestDatabase): Promise<string> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return await ddlStamp(c);
  } finally {
    await c.end();
  }
}

/** Waits until the one stored row holds the source's current stamp (stores run a moment after a read). */
async function storedCurrent(db: TestDatabase = src): Promise<Row> {
  const stamp = await stampOf(db);
  let seen: string[] = [];
  return await eventually(
    async () => {
      const all = await rows().catch(() => []);
      seen = all.map((r) => r.ddl_stamp);
      return all.length === 1 && all[0]?.ddl_stamp === stamp ? all[0] : false;
    },
    { what: `the current introspection stored (stamp ${stamp})`, context: () => `stored stamps: ${JSON.stringify(seen)}` },
  );
}

/** Rewrites the stored row's text with `edit`, and its checksum to match unless `keepChecksum`. */
async function editStored(edit: (intro: any) => void, keepChecksum = false): Promise<void> {
  const row = (await rows())[0];
  if (row === undefined) throw new Error('nothing stored');
  const intro = JSON.parse(row.introspection);
  edit(intro);
  const text = JSON.stringify(intro);
  const checksum = keepChecksum ? row.checksum : createHash('sha256').update(text).digest('hex');
  await meta.sql('UPDATE engine_metadata.source_introspection SET introspection = $1, checksum = $2', [text, checksum]);
}

/** Sets the stored comment of column `authors.name` (and the fingerprint: as a change the stamp did not see). */
const storedComment = (comment: string) => (intro: any) => {
  intro.fingerprint = `edited: ${comment}`;
  const authors = intro.tables.find((e: [string, unknown]) => e[0] === 'public.authors')[1];
  authors.columns.find((c: { name: string }) => c.name === 'name').comment = comment;
};

const NAME_DESCRIPTION = '{ __type(name: "authors") { fields { name description } } }';
async function nameDescription(s: Started): Promise<unknown> {
  const r = await s.gql(NAME_DESCRIPTION);
  return r.data.__type.fields.find((f: { name: string }) => f.name === 'name')?.description;
}

describe('the stored text', () => {
  it('reads back equal to the introspection it was made from', async () => {
    await src.sql(`
      CREATE TYPE mood AS ENUM ('sad', 'ok');
      CREATE TABLE books (id serial PRIMARY KEY, author_id int REFERENCES authors(id), m mood, code text UNIQUE, g int GENERATED ALWAYS AS (id * 2) STORED);
      CREATE VIEW book_view AS SELECT id, code FROM books;
      CREATE FUNCTION books_by(a int, lim int DEFAULT 10) RETURNS SETOF books STABLE LANGUAGE sql AS $$ SELECT * FROM books WHERE author_id = a LIMIT lim $$;
    `);
    const c = new pg.Client({ connectionString: src.url });
    await c.connect();
    try {
      const read = await introspectPostgres(c);
      expect(read.identity).toMatch(/^\d+\/\d+\/\d+\/[0-9a-f]{32}\/\d+$/);
      const back = parseIntrospectionText(introspectionText(read), read.ddlStamp, read.identity ?? '');
      expect(sameData(back.tables, read.tables)).toBe(true);
      expect(sameData(back.functions, read.functions)).toBe(true);
      expect({ ...back, tables: null, functions: null }).toEqual({ ...read, tables: null, functions: null });
    } finally {
      await c.end();
    }
  });
});

describe('a restart', () => {
  it('uses the stored introspection while the stamp is current, and reload_metadata reads the source again', async () => {
    const a = await start();
    try {
      expect((await a.md('pg_track_table', { table: 'authors' })).status).toBe(200);
      expect(a.lines.map((l) => l.message)).not.toContain(READ_BACK);
      await storedCurrent();
      // One metadata database, one row per source configuration; no password in its key.
      expect((await rows()).map((r) => r.source_key)).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
    } finally {
      await a.close();
    }
    await editStored(storedComment('from the store'));

    const b = await start();
    try {
      expect(b.lines.map((l) => l.message)).toContain(READ_BACK);
      expect(await nameDescription(b)).toBe('from the store');
      expect(await b.gql('{ authors { id name } }')).toEqual({ data: { authors: [{ id: 1, name: 'Ann' }] } });
      // reload_metadata reads the source itself again.
      expect((await b.md('reload_metadata', {})).status).toBe(200);
      expect(await nameDescription(b)).toBe('the name');
      // ... and stores what it read, for the next start.
      await eventually(async () => !(await rows())[0]?.introspection.includes('from the store'), { what: 'the re-read stored' });
    } finally {
      await b.close();
    }
  });

  it('reads the source again when DDL changed it while the engine was down', async () => {
    // A table the metadata names before it exists: inconsistent until it is made.
    const a = await start();
    try {
      const exported = (await a.md('export_metadata', {})).body;
      const source = exported.sources.find((s: { name: string }) => s.name === 'default');
      source.tables.push({ table: { schema: 'public', name: 'later' } });
      const r = await a.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: exported });
      expect(r.status).toBe(200);
      expect(a.engine.metadata.isConsistent()).toBe(false);
      await storedCurrent();
    } finally {
      await a.close();
    }
    await src.sql(`
      CREATE TABLE later (id int PRIMARY KEY); INSERT INTO later VALUES (7);
      ALTER TABLE authors ADD COLUMN born int;
      COMMENT ON COLUMN authors.name IS 'changed while down';
    `);
    // Were the stored introspection used, no metadata call would come to correct it: GraphQL requests never re-read.
    const b = await start();
    try {
      expect(b.lines.map((l) => l.message)).not.toContain(READ_BACK);
      expect(b.engine.metadata.isConsistent()).toBe(true);
      expect(await b.gql('{ later { id } }')).toEqual({ data: { later: [{ id: 7 }] } });
      expect(await b.gql('{ authors { born } }')).toEqual({ data: { authors: [{ born: null }] } });
      expect(await nameDescription(b)).toBe('changed while down');
      await storedCurrent();
    } finally {
      await b.close();
    }
  });

  it('does not use an introspection stored for another database the same URL reached before', async () => {
    await editStored(storedComment('from the store'));
    // A copy of the source (same catalogs down to their xmins, so the same stamp) takes its name:
    // as a database restored elsewhere that the URL now reaches.
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    const old = `${src.name}_old`;
    try {
      await admin.query(`CREATE DATABASE "${src.name}_copy" TEMPLATE "${src.name}"`);
      await admin.query(`ALTER DATABASE "${src.name}" RENAME TO "${old}"`);
      extra.push(old);
      await admin.query(`ALTER DATABASE "${src.name}_copy" RENAME TO "${src.name}"`);
    } finally {
      await admin.end();
    }
    const before = (await rows())[0];
    expect(await stampOf(src)).toBe(before?.ddl_stamp);

    const b = await start();
    try {
      expect(b.lines.map((l) => l.message)).not.toContain(READ_BACK);
      expect(await nameDescription(b)).toBe('changed while down');
      // The row of the old database is replaced: still one per source.
      await eventually(
        async () => {
          const all = await rows();
          return all.length === 1 && all[0]?.database_identity !== before?.database_identity;
        },
        { what: 'the row replaced by one of this database' },
      );
    } finally {
      await b.close();
    }
  });

  it('ignores a corrupt stored row with a warning', async () => {
    await storedCurrent();
    await editStored(storedComment('from the store'), true);
    const b = await start();
    try {
      expect(b.lines.map((l) => l.message)).not.toContain(READ_BACK);
      const warning = b.lines.find((l) => l.message === 'stored introspection ignored');
      expect(warning?.level).toBe('warn');
      expect(JSON.stringify(warning?.detail)).toContain('checksum');
      expect(await nameDescription(b)).toBe('changed while down');
    } finally {
      await b.close();
    }

    // A row in a shape this engine did not write, with a checksum that matches it.
    await storedCurrent();
    await editStored((intro) => {
      intro.tables[0][1].columns = 'not a list';
    });
    const c = await start();
    try {
      expect(c.lines.map((l) => l.message)).not.toContain(READ_BACK);
      const warning = c.lines.find((l) => l.message === 'stored introspection ignored');
      expect(JSON.stringify(warning?.detail)).toContain('$.tables[0][1].columns: expected an array');
      expect(await c.gql('{ authors { id name } }')).toEqual({ data: { authors: [{ id: 1, name: 'Ann' }] } });
    } finally {
      await c.close();
    }
  });

  it('starts and answers when storing fails, with a warning', async () => {
    await meta.sql(`
      CREATE FUNCTION engine_metadata.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'storage refused'; END $$;
      CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON engine_metadata.source_introspection FOR EACH ROW EXECUTE FUNCTION engine_metadata.refuse();
    `);
    try {
      await src.sql('CREATE TABLE while_refused (id int)');
      const b = await start();
      try {
        expect(b.lines.map((l) => l.message)).not.toContain(READ_BACK);
        expect(await b.gql('{ authors { id name } }')).toEqual({ data: { authors: [{ id: 1, name: 'Ann' }] } });
        expect((await b.md('pg_track_table', { table: 'while_refused' })).status).toBe(200);
      } finally {
        await b.close();
      }
      const warning = b.lines.find((l) => l.message === 'could not store the introspection');
      expect(warning?.level).toBe('warn');
      expect(JSON.stringify(warning?.detail)).toContain('storage refused');
    } finally {
      await meta.sql('DROP TRIGGER refuse ON engine_metadata.source_introspection; DROP FUNCTION engine_metadata.refuse()');
    }
  });

  it('neither stores nor uses one where the database cannot tell its identity', async () => {
    // A managed server may revoke pg_control_*: the identity is then unknown, and introspection must still work.
    role = `intro_plain_${src.name.slice(-8)}`;
    await src.sql(`CREATE ROLE "${role}" LOGIN PASSWORD 'plain'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO "${role}"`);
    await src.sql('REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system() FROM PUBLIC');
    const url = new URL(src.url);
    url.username = role;
    url.password = 'plain';
    // A metadata database of its own: the other one's document names the source with the superuser's URL.
    const meta2 = await createTestDatabase('intro_md2');
    try {
      for (let k = 0; k < 2; k++) {
        const b = await start(url.toString(), meta2.url);
        try {
          expect(b.lines.map((l) => l.message)).not.toContain(READ_BACK);
          expect(b.lines.filter((l) => l.level === 'warn')).toEqual([]);
          if (k === 0) expect((await b.md('pg_track_table', { table: 'authors' })).status).toBe(200);
          expect(await b.gql('{ authors { id name } }')).toEqual({ data: { authors: [{ id: 1, name: 'Ann' }] } });
        } finally {
          await b.close();
        }
        // Closing writes what waits to be stored: nothing was.
        expect(await rows(meta2).catch((e: Error) => e.message)).toContain('does not exist');
      }
    } finally {
      await meta2.drop();
    }
  });
});
