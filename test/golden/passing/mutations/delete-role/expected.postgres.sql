WITH "_w" AS (
  DELETE
  FROM "public"."tracks" AS "_0"
  WHERE EXISTS (
    SELECT 1
    FROM "public"."albums" AS "_1"
    WHERE ("_1"."id" = "_0"."album_id" AND ("_1"."artist_id" = $1)))
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"session-object"}]
