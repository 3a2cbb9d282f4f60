WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_r1" AS (
  SELECT row_number() OVER (ORDER BY "o"."__ord", "e"."ord") AS "__ord", "o"."__ord" AS "__pord", "e"."value" AS "__j"
  FROM "_r0" AS "o"
  CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof("o"."__j" -> 'first_album' -> 'data') = 'object' THEN jsonb_build_array("o"."__j" -> 'first_album' -> 'data') END) WITH ORDINALITY AS "e"("value", "ord")), "_s0_0" AS (
  SELECT "s"."__ord", "s"."__pord", "r"."name" AS "name"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"), "_i0_0" AS (MERGE INTO "public"."artists" AS "_0" USING (
  SELECT *
  FROM "_s0_0"
  ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN INSERT ("name") VALUES ("m"."name") RETURNING "m"."__ord", "m"."__pord", "_0".*), "_n0" AS (
  SELECT *
  FROM "_i0_0"), "_i1_0" AS (
  INSERT INTO "public"."albums" AS "_1" ("artist_id", "title")
  SELECT "o"."id", "r"."title"
  FROM "_r1" AS "s"
  JOIN "_n0" AS "o" ON "o"."__ord" = "s"."__pord"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."albums", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT (
  SELECT json_build_object('id', "_2"."id")
  FROM "_n0" AS "_2"
  ORDER BY "_2"."__ord"
  LIMIT 1)::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"[{\"name\":\"New\",\"first_album\":{\"data\":{\"title\":\"First\"}}}]"},{"kind":"session-object"}]
