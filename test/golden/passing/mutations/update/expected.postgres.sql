WITH "_w" AS (
  UPDATE "public"."albums" AS "_0"
  SET "meta" = "_0"."meta" || "_2"."meta", "title" = "_4"."title"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."albums", "_1"."j") AS "_2", (
    SELECT ($2)::jsonb AS "j") AS "_3", jsonb_populate_record(NULL::"public"."albums", "_3"."j") AS "_4"
  WHERE ("_0"."id" = $3)
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"), 'returning', (
  SELECT coalesce(json_agg(json_build_object('id', "_5"."id", 'title', "_5"."title", 'artist', (
    SELECT row_to_json("_8")
    FROM (
      SELECT "_6"."name"
      FROM "public"."artists" AS "_6"
      WHERE "_6"."id" = "_5"."artist_id") AS "_7",
    LATERAL (
      SELECT "_7"."name" AS "name") AS "_8"
    LIMIT 1))), '[]'::json)
  FROM "_w" AS "_5"))::text, set_config('engine.session', $4, true);
-- params: [{"kind":"const","value":"{\"meta\":{\"a\":1}}"},{"kind":"const","value":"{\"title\":\"New\"}"},{"kind":"const","value":1},{"kind":"session-object"}]

WITH "_w" AS (
  UPDATE "public"."tracks" AS "_0"
  SET "milliseconds" = "_0"."milliseconds" + "_2"."milliseconds"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."tracks", "_1"."j") AS "_2"
  WHERE ("_0"."id" > $2)
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $3, true);
-- params: [{"kind":"const","value":"{\"milliseconds\":10}"},{"kind":"const","value":5},{"kind":"session-object"}]
