WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_i0_0" AS (
  INSERT INTO "public"."artists" AS "_0" ("id", "name")
  SELECT "r"."id", "r"."name"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT (
  SELECT json_build_object('id', "_1"."id", 'name', "_1"."name")
  FROM "_i0_0" AS "_1"
  LIMIT 1)::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"}]"},{"kind":"session-object"}]
