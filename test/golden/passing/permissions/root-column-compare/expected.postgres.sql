SELECT json_build_object('tracks', (
  SELECT coalesce(json_agg("_5"), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."album_id"
    FROM "public"."tracks" AS "_0"
    WHERE (EXISTS (
      SELECT 1
      FROM "public"."albums" AS "_2"
      WHERE ("_2"."id" = "_0"."album_id" AND (("_2"."id" = "_0"."album_id") AND ("_2"."artist_id" < "_0"."milliseconds")))) AND EXISTS (
      SELECT 1
      FROM "public"."albums" AS "_3"
      WHERE ("_3"."id" = "_0"."album_id" AND (EXISTS (
        SELECT 1
        FROM "public"."tracks" AS "_4"
        WHERE ("_4"."album_id" = "_3"."id" AND ("_4"."album_id" = "_3"."id"))) AND ("_3"."title" LIKE $1)))))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."album_id" AS "album_id") AS "_5"))::text;
-- params: [{"kind":"const","value":"A%"}]
