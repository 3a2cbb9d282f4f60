SELECT json_build_object('tracks', (
  SELECT coalesce(json_agg("_2" ORDER BY "_1"."album_id" ASC NULLS LAST, "_1"."milliseconds" DESC NULLS FIRST), '[]'::json)
  FROM (
    SELECT DISTINCT ON ("_0"."album_id") "_0"."album_id", "_0"."name", "_0"."milliseconds"
    FROM "public"."tracks" AS "_0"
    ORDER BY "_0"."album_id" ASC NULLS LAST, "_0"."milliseconds" DESC NULLS FIRST) AS "_1",
  LATERAL (
    SELECT "_1"."album_id" AS "album_id", "_1"."name" AS "name") AS "_2"))::text;
-- params: []
