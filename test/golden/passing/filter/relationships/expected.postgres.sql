SELECT json_build_object('artists', (
  SELECT coalesce(json_agg("_8"), '[]'::json)
  FROM (
    SELECT "_0"."id"
    FROM "public"."artists" AS "_0"
    WHERE EXISTS (
      SELECT 1
      FROM "public"."albums" AS "_2"
      WHERE ("_2"."artist_id" = "_0"."id" AND EXISTS (
        SELECT 1
        FROM "public"."tracks" AS "_3"
        WHERE ("_3"."album_id" = "_2"."id" AND ("_3"."name" = $1)))))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", (
      SELECT coalesce(json_agg("_7"), '[]'::json)
      FROM (
        SELECT "_4"."id"
        FROM "public"."albums" AS "_4"
        WHERE ("_4"."artist_id" = "_1"."id" AND EXISTS (
          SELECT 1
          FROM "public"."artists" AS "_6"
          WHERE ("_6"."id" = "_4"."artist_id" AND ("_6"."name" <> $2))))) AS "_5",
      LATERAL (
        SELECT "_5"."id" AS "id") AS "_7") AS "albums") AS "_8"))::text;
-- params: [{"kind":"const","value":"x"},{"kind":"const","value":"y"}]
