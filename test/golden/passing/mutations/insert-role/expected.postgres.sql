WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_i0_0" AS (
  INSERT INTO "public"."tracks" AS "_0" ("album_id", "milliseconds", "name", "genre_id")
  SELECT "r"."album_id", "r"."milliseconds", "r"."name", "r"."genre_id"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."tracks", "s"."__j" || ($2)::jsonb) AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT (
  SELECT json_build_object('id', "_3"."id", 'name', "_3"."name")
  FROM "_i0_0" AS "_3"
  LIMIT 1)::text, set_config('engine.session', $3, true), CASE WHEN EXISTS (
  SELECT 1
  FROM "_i0_0" AS "_1"
  WHERE (EXISTS (
    SELECT 1
    FROM "public"."albums" AS "_2"
    WHERE ("_2"."id" = "_1"."album_id" AND ("_2"."artist_id" = $4)))) IS NOT TRUE) THEN set_config('engine.error', 'permission-error|check constraint of an insert permission has failed', true) END;
-- params: [{"kind":"const","value":"[{\"name\":\"T\",\"album_id\":10,\"milliseconds\":1000}]"},{"kind":"json-doc","doc":{"kind":"object","fields":[["genre_id",{"kind":"const","value":1}]]}},{"kind":"session-object"},{"kind":"session","name":"x-engine-user-id","encoding":"plain"}]

DO $$BEGIN IF coalesce(current_setting('engine.error', true), '') <> '' THEN RAISE EXCEPTION USING MESSAGE = substr(current_setting('engine.error'), strpos(current_setting('engine.error'), '|') + 1), HINT = split_part(current_setting('engine.error'), '|', 1), DETAIL = 'engine-assertion'; END IF; END$$;
-- params: []
