/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Nested inserts link each child to its own parent whatever order PostgreSQL
 * returns inserted rows in (issue 12.9, Note [Correlated nested inserts]):
 * BEFORE triggers that rewrite rows (the key included) or skip them, upserts
 * mixing inserted and updated parents, object relationships, and 200 parents
 * with 20 children each. Every child's label names the parent it was given
 * under; the database must agree.
 *
 * Every case runs on the run's server (18: the link is carried through MERGE
 * .. RETURNING) and on a PostgreSQL 16 (keys assigned before the insert,
 * where a trigger that changes the key fails the insert cleanly instead).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../support/pg.ts";
import { startTestEngine, type TestEngine } from "../../support/engine.ts";
import {
  startPostgres16,
  type ExtraServer,
} from "../../support/postgres-16.ts";

const SCHEMA = `
CREATE TABLE parents (id serial PRIMARY KEY, code text UNIQUE NOT NULL, name text);
CREATE TABLE kids (id serial PRIMARY KEY, parent_id int REFERENCES parents(id), label text NOT NULL);
-- Rewrites rows on their way in: shifts the key of 'shift*' parents, renames every one, re-keys the code of
-- 'rekey*' ones, and drops 'drop*' ones (a BEFORE trigger returning NULL).
CREATE FUNCTION parents_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.code LIKE 'drop%' THEN RETURN NULL; END IF;
  IF NEW.code LIKE 'shift%' THEN NEW.id := NEW.id + 100000; END IF;
  IF NEW.code LIKE 'rekey%' THEN NEW.code := NEW.code || '-changed'; END IF;
  NEW.name := 'seen:' || coalesce(NEW.name, '');
  RETURN NEW;
END $$;
CREATE TRIGGER parents_before BEFORE INSERT ON parents FOR EACH ROW EXECUTE FUNCTION parents_before();
`;

const SERVERS = [
  { name: "the default server", v16: false },
  { name: "PostgreSQL 16", v16: true },
] as const;

describe.each(SERVERS)("nested insert links on $name", ({ v16 }) => {
  let db: TestDatabase;
  let engine: TestEngine;
  let server: ExtraServer | undefined;
  beforeAll(async () => {
    server = v16 ? await startPostgres16() : undefined;
    db = await createTestDatabase("link", server?.adminUrl);
    await db.sql(SCHEMA);
    if (v16)
      expect(
        Number(
          (await db.sql("SHOW server_version_num")).rows[0].server_version_num,
        ),
      ).toBeLessThan(170000);
    engine = await startTestEngine({ databaseUrl: db.url });
    const r = await engine.metadata({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "parents" } },
        { type: "pg_track_table", args: { table: "kids" } },
        {
          type: "pg_create_array_relationship",
          args: {
            table: "parents",
            name: "kids",
            using: {
              foreign_key_constraint_on: {
                table: "kids",
                columns: ["parent_id"],
              },
            },
          },
        },
        {
          type: "pg_create_object_relationship",
          args: {
            table: "kids",
            name: "parent",
            using: { foreign_key_constraint_on: "parent_id" },
          },
        },
      ],
    });
    if (r.status !== 200) throw new Error(r.text);
  });
  afterAll(async () => {
    await engine?.close();
    await db?.drop();
    await server?.stop();
  }, 30_000);

  const INSERT = `mutation ($objects: [parents_insert_input!]!, $onConflict: parents_on_conflict) {
  insert_parents(objects: $objects, on_conflict: $onConflict) { affected_rows returning { code kids { label } } }
}`;

  /** Children whose label does not start with their parent's code + ':' (by what the database holds). */
  async function misplaced(prefix: string): Promise<unknown[]> {
    return (
      await db.sql(
        `SELECT k.label, p.code FROM kids k LEFT JOIN parents p ON p.id = k.parent_id
        WHERE k.label LIKE $1 AND (p.code IS NULL OR split_part(k.label, ':', 1) <> regexp_replace(p.code, '-changed$', ''))`,
        [`${prefix}%`],
      )
    ).rows;
  }

  async function countKids(prefix: string): Promise<number> {
    return Number(
      (
        await db.sql("SELECT count(*) AS n FROM kids WHERE label LIKE $1", [
          `${prefix}%`,
        ])
      ).rows[0].n,
    );
  }

  const family = (code: string, kids: number): Record<string, unknown> => ({
    code,
    name: code,
    kids: {
      data: Array.from({ length: kids }, (_, i) => ({ label: `${code}:${i}` })),
    },
  });

  it("200 parents × 20 children: every child under its own parent", async () => {
    const objects = Array.from({ length: 200 }, (_, i) =>
      family(`bulk${i}`, 20),
    );
    const r = await engine.graphql<any>(INSERT, { objects });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.insert_parents.affected_rows).toBe(200 * 21);
    expect(await countKids("bulk")).toBe(4000);
    expect(await misplaced("bulk")).toEqual([]);
    // The answer too: returning follows the relationship from each parent.
    for (const p of r.body.data.insert_parents.returning) {
      expect(p.kids.map((k: any) => k.label).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `${p.code}:${i}`).sort(),
      );
    }
  });

  it.skipIf(v16)(
    "a BEFORE trigger that rewrites rows and changes the key: children follow the key the row got",
    async () => {
      const objects = Array.from({ length: 30 }, (_, i) => ({
        ...family(`${i % 3 === 0 ? "shift" : "trig"}${i}`, 3),
        id: 5000 + i,
      }));
      const r = await engine.graphql<any>(INSERT, { objects });
      expect(r.body.errors).toBeUndefined();
      expect(await misplaced("shift")).toEqual([]);
      expect(await misplaced("trig")).toEqual([]);
      const shifted = (
        await db.sql("SELECT id FROM parents WHERE code = 'shift0'")
      ).rows[0].id;
      expect(shifted).toBe(105000);
      expect(
        Number(
          (
            await db.sql(
              "SELECT count(*) AS n FROM kids WHERE parent_id = 105000",
            )
          ).rows[0].n,
        ),
      ).toBe(3);
    },
  );

  it("a parent a BEFORE trigger drops takes its children with it and shifts no one else", async () => {
    // By position, gone2's children would have gone under the row after drop1's place (issue 12.9).
    const objects = [
      family("gone1", 2),
      family("drop1", 2),
      family("gone2", 3),
      family("gone3", 1),
    ];
    const r = await engine.graphql<any>(INSERT, { objects });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.insert_parents.affected_rows).toBe(3 + 6);
    expect(await countKids("drop")).toBe(0);
    expect(await countKids("gone")).toBe(6);
    expect(await misplaced("gone")).toEqual([]);
  });

  it("an upsert mixing updated and inserted parents: each child under its own parent", async () => {
    const seed = Array.from({ length: 20 }, (_, i) => family(`ups${i * 2}`, 0));
    expect(
      (await engine.graphql<any>(INSERT, { objects: seed })).body.errors,
    ).toBeUndefined();
    // Even codes exist (updated), odd ones are new (inserted), interleaved.
    const objects = Array.from({ length: 40 }, (_, i) => family(`ups${i}`, 5));
    const r = await engine.graphql<any>(INSERT, {
      objects,
      onConflict: { constraint: "parents_code_key", update_columns: ["name"] },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.insert_parents.affected_rows).toBe(40 + 200);
    expect(await countKids("ups")).toBe(200);
    expect(await misplaced("ups")).toEqual([]);
    expect(
      Number(
        (
          await db.sql(
            "SELECT count(*) AS n FROM parents WHERE code LIKE 'ups%'",
          )
        ).rows[0].n,
      ),
    ).toBe(40);
  });

  it("an upsert whose trigger changes the conflict key fails cleanly instead of guessing the link", async () => {
    const objects = [family("rekey1", 2), family("plain1", 2)];
    const r = await engine.graphql<any>(INSERT, {
      objects,
      onConflict: { constraint: "parents_code_key", update_columns: ["name"] },
    });
    expect(r.status).toBe(200);
    expect(r.body.errors?.[0]?.extensions?.code).toBe("unexpected");
    expect(r.body.errors[0].message).toContain("cannot link nested rows");
    expect(await countKids("rekey")).toBe(0);
    expect(await countKids("plain1")).toBe(0);
    // Without an upsert the same trigger is fine: the link is carried through the statement.
    const ok = await engine.graphql<any>(INSERT, {
      objects: [family("rekey2", 2), family("plain2", 2)],
    });
    expect(ok.body.errors).toBeUndefined();
    expect(await misplaced("rekey2")).toEqual([]);
    expect(await misplaced("plain2")).toEqual([]);
  });

  it.runIf(v16)(
    "before 17, a BEFORE trigger that changes the key fails the insert cleanly; other rewrites link",
    async () => {
      const objects = Array.from({ length: 6 }, (_, i) => ({
        ...family(`${i % 3 === 0 ? "shift" : "trig"}${i}`, 3),
        id: 5000 + i,
      }));
      const r = await engine.graphql<any>(INSERT, { objects });
      expect(r.status).toBe(200);
      expect(r.body.errors?.[0]?.extensions?.code).toBe("unexpected");
      expect(r.body.errors[0].message).toContain(
        'cannot link nested rows: a row inserted into table "parents"',
      );
      expect(await countKids("shift")).toBe(0);
      expect(await countKids("trig")).toBe(0);
      // Rewrites that keep the key (the name, the code) link as given, keys given or drawn from the serial.
      const given = Array.from({ length: 30 }, (_, i) => ({
        ...family(`trig${i}`, 3),
        id: 5000 + i,
      }));
      expect(
        (await engine.graphql<any>(INSERT, { objects: given })).body.errors,
      ).toBeUndefined();
      expect(await countKids("trig")).toBe(90);
      expect(await misplaced("trig")).toEqual([]);
    },
  );

  it("object relationships: each child gets the parent inserted for it, through triggers", async () => {
    const objects = Array.from({ length: 60 }, (_, i) => {
      const code = `${i % 4 === 0 && !v16 ? "shift" : "obj"}o${i}`;
      return {
        label: `${code}:0`,
        parent: { data: { code, name: code, id: 7000 + i } },
      };
    });
    const r = await engine.graphql<any>(
      "mutation ($objects: [kids_insert_input!]!) { insert_kids(objects: $objects) { affected_rows returning { label parent { code } } } }",
      { objects },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.insert_kids.affected_rows).toBe(120);
    expect(await misplaced("objo")).toEqual([]);
    expect(await misplaced("shifto")).toEqual([]);
    for (const k of r.body.data.insert_kids.returning)
      expect(k.label.split(":")[0]).toBe(k.parent.code);
  });
});
