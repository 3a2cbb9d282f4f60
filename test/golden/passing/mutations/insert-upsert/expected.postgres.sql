WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_i0_0" AS (
  INSERT INTO "public"."artists" AS "_0" ("id", "name")
  SELECT "r"."id", "r"."name"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  ON CONFLICT ("id") DO UPDATE
  SET "name" = EXCLUDED."name"
  WHERE ("_0"."name" <> $2)
  RETURNING *)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_i0_0"))::text, set_config('engine.session', $3, true);
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"}]"},{"kind":"const","value":"locked"},{"kind":"session-object"}]

WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_i0_0" AS (
  INSERT INTO "public"."genres" AS "_0" ("id", "name")
  SELECT "r"."id", "r"."name"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."genres", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  ON CONFLICT ("id") DO NOTHING
  RETURNING *)
SELECT (
  SELECT json_build_object('id', "_1"."id")
  FROM "_i0_0" AS "_1"
  LIMIT 1)::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Rock\"}]"},{"kind":"session-object"}]
