WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_r1" AS (
  SELECT row_number() OVER (ORDER BY "o"."__ord", "e"."ord") AS "__ord", "o"."__ord" AS "__pord", "e"."value" AS "__j"
  FROM "_r0" AS "o"
  CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof("o"."__j" -> 'albums' -> 'data') = 'array' THEN "o"."__j" -> 'albums' -> 'data' END) WITH ORDINALITY AS "e"("value", "ord")), "_s0_0" AS (
  SELECT "s"."__ord", "s"."__pord", "r"."id" AS "id", "r"."name" AS "name"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"), "_i0_0" AS (
  INSERT INTO "public"."artists" AS "_0" ("id", "name")
  SELECT "m"."id", "m"."name"
  FROM "_s0_0" AS "m"
  ORDER BY "m"."__ord"
  RETURNING *), "_n0" AS (
  SELECT "s"."__ord", "s"."__pord", "i".*
  FROM "_i0_0" AS "i"
  JOIN "_s0_0" AS "s" ON "i"."id" = "s"."id"), "_i1_0" AS (
  INSERT INTO "public"."albums" AS "_1" ("artist_id", "id", "title")
  SELECT "o"."id", "r"."id", "r"."title"
  FROM "_r1" AS "s"
  JOIN "_n0" AS "o" ON "o"."__ord" = "s"."__pord"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."albums", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT (
  SELECT json_build_object('id', "_2"."id", 'name', "_2"."name")
  FROM "_n0" AS "_2"
  ORDER BY "_2"."__ord"
  LIMIT 1)::text, set_config('engine.session', $2, true), CASE WHEN (
  SELECT count(*)
  FROM "_i0_0" AS "i"
  JOIN "_s0_0" AS "s" ON "i"."id" = "s"."id") <> (
  SELECT count(*)
  FROM "_i0_0") THEN set_config('engine.error', 'unexpected|cannot link nested rows: a row inserted into table "artists" came back without the key it was given (changed by a trigger?)', true) END;
-- params: [{"kind":"const","value":"[{\"id\":1,\"name\":\"Ann\",\"albums\":{\"data\":[{\"id\":10,\"title\":\"A\"},{\"id\":11,\"title\":\"B\"}]}}]"},{"kind":"session-object"}]

DO $$BEGIN IF coalesce(current_setting('engine.error', true), '') <> '' THEN RAISE EXCEPTION USING MESSAGE = substr(current_setting('engine.error'), strpos(current_setting('engine.error'), '|') + 1), HINT = split_part(current_setting('engine.error'), '|', 1), DETAIL = 'engine-assertion'; END IF; END$$;
-- params: []
