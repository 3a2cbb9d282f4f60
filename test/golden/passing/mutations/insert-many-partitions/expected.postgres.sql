WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_s0_0" AS (
  SELECT "s"."__ord", "s"."__pord", "r"."id" AS "id", "r"."name" AS "name"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"
  WHERE ("s"."__j" ? 'id') AND ("s"."__j" ? 'name') AND NOT ("s"."__j" ? 'tags')), "_i0_0" AS (MERGE INTO "public"."artists" AS "_0" USING (
  SELECT *
  FROM "_s0_0"
  ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN INSERT ("id", "name") VALUES ("m"."id", "m"."name") RETURNING "m"."__ord", "m"."__pord", "_0".*), "_s0_1" AS (
  SELECT "s"."__ord", "s"."__pord", "r"."id" AS "id"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"
  WHERE ("s"."__j" ? 'id') AND NOT ("s"."__j" ? 'name') AND NOT ("s"."__j" ? 'tags')), "_i0_1" AS (MERGE INTO "public"."artists" AS "_1" USING (
  SELECT *
  FROM "_s0_1"
  ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN INSERT ("id") VALUES ("m"."id") RETURNING "m"."__ord", "m"."__pord", "_1".*), "_s0_2" AS (
  SELECT "s"."__ord", "s"."__pord", "r"."id" AS "id", "r"."name" AS "name", "r"."tags" AS "tags"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"
  WHERE ("s"."__j" ? 'id') AND ("s"."__j" ? 'name') AND ("s"."__j" ? 'tags')), "_i0_2" AS (MERGE INTO "public"."artists" AS "_2" USING (
  SELECT *
  FROM "_s0_2"
  ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN INSERT ("id", "name", "tags") VALUES ("m"."id", "m"."name", "m"."tags") RETURNING "m"."__ord", "m"."__pord", "_2".*), "_n0" AS (
  SELECT *
  FROM "_i0_0"
  UNION ALL
  SELECT *
  FROM "_i0_1"
  UNION ALL
  SELECT *
  FROM "_i0_2")
SELECT json_build_object('affected_rows', ((
  SELECT count(*)
  FROM "_i0_0") + (
  SELECT count(*)
  FROM "_i0_1") + (
  SELECT count(*)
  FROM "_i0_2")), 'returning', (
  SELECT coalesce(json_agg(json_build_object('id', "_3"."id", 'name', "_3"."name") ORDER BY "_3"."__ord"), '[]'::json)
  FROM "_n0" AS "_3"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\"},{\"id\":2},{\"id\":3,\"name\":\"Cid\",\"tags\":[\"a\",\"b\"]}]"},{"kind":"session-object"}]
