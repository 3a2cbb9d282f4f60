WITH "_w" AS (
  UPDATE "public"."tracks" AS "_0"
  SET "name" = "_2"."name"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."tracks", "_1"."j") AS "_2"
  WHERE (EXISTS (
    SELECT 1
    FROM "public"."albums" AS "_3"
    WHERE ("_3"."id" = "_0"."album_id" AND ("_3"."artist_id" = $2))) AND ("_0"."id" = $3))
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $4, true), CASE WHEN EXISTS (
  SELECT 1
  FROM "_w" AS "_4"
  WHERE (("_4"."milliseconds" > $5)) IS NOT TRUE) THEN set_config('engine.error', 'permission-error|check constraint of an update permission has failed', true) END;
-- params: [{"kind":"const","value":"{\"name\":\"n\"}"},{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":1},{"kind":"session-object"},{"kind":"const","value":0}]

DO $$BEGIN IF coalesce(current_setting('engine.error', true), '') <> '' THEN RAISE EXCEPTION USING MESSAGE = substr(current_setting('engine.error'), strpos(current_setting('engine.error'), '|') + 1), HINT = split_part(current_setting('engine.error'), '|', 1), DETAIL = 'engine-assertion'; END IF; END$$;
-- params: []
