SELECT json_build_object('albums', (
  SELECT coalesce(json_agg("_13" ORDER BY "_1"."id" ASC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."title", "_0"."artist_id"
    FROM "public"."albums" AS "_0"
    ORDER BY "_0"."id" ASC NULLS LAST
    LIMIT $1) AS "_1"
  LEFT JOIN LATERAL (
    SELECT row_to_json("_5") AS "o"
    FROM (
      SELECT "_3"."id", "_3"."name"
      FROM "public"."artists" AS "_3"
      WHERE "_3"."id" = "_1"."artist_id") AS "_4",
    LATERAL (
      SELECT "_4"."id" AS "id", "_4"."name" AS "name") AS "_5"
    LIMIT 1) AS "_2" ON true,
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."title" AS "title", "_2"."o" AS "artist", (
      SELECT coalesce(json_agg("_12" ORDER BY "_7"."id" ASC NULLS LAST), '[]'::json)
      FROM (
        SELECT "_6"."id", "_6"."name", "_6"."milliseconds", "_6"."genre_id"
        FROM "public"."tracks" AS "_6"
        WHERE "_6"."album_id" = "_1"."id") AS "_7"
      LEFT JOIN LATERAL (
        SELECT row_to_json("_11") AS "o"
        FROM (
          SELECT "_9"."name"
          FROM "public"."genres" AS "_9"
          WHERE "_9"."id" = "_7"."genre_id") AS "_10",
        LATERAL (
          SELECT "_10"."name" AS "name") AS "_11"
        LIMIT 1) AS "_8" ON true,
      LATERAL (
        SELECT "_7"."id" AS "id", "_7"."name" AS "name", "_7"."milliseconds" AS "milliseconds", "_8"."o" AS "genre") AS "_12") AS "tracks") AS "_13"))::text;
-- params: [{"kind":"const","value":50}]
