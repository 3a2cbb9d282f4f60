SELECT json_build_object('artists', (
  SELECT coalesce(json_agg("_16" ORDER BY "_1"."id" ASC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_0"."name", "_0"."id"
    FROM "public"."artists" AS "_0"
    ORDER BY "_0"."id" ASC NULLS LAST
    LIMIT $1) AS "_1",
  LATERAL (
    SELECT "_1"."name" AS "name", (
      SELECT row_to_json("_5")
      FROM (
        SELECT count(*) AS "__a0"
        FROM (
          SELECT 1 AS "__one"
          FROM "public"."albums" AS "_2"
          WHERE "_2"."artist_id" = "_1"."id") AS "_3") AS "_4",
      LATERAL (
        SELECT "_6" AS "aggregate"
        FROM (
          SELECT "_4"."__a0" AS "count") AS "_6") AS "_5") AS "albums_aggregate", (
      SELECT coalesce(json_agg("_15"), '[]'::json)
      FROM (
        SELECT "_7"."title", "_7"."id"
        FROM "public"."albums" AS "_7"
        WHERE "_7"."artist_id" = "_1"."id"
        LIMIT $2) AS "_8",
      LATERAL (
        SELECT "_8"."title" AS "title", (
          SELECT row_to_json("_12")
          FROM (
            SELECT count(*) AS "__a0", sum("_10"."milliseconds") AS "__a1"
            FROM (
              SELECT "_9"."milliseconds"
              FROM "public"."tracks" AS "_9"
              WHERE "_9"."album_id" = "_8"."id") AS "_10") AS "_11",
          LATERAL (
            SELECT "_13" AS "aggregate"
            FROM (
              SELECT "_11"."__a0" AS "count", "_14" AS "sum"
              FROM (
                SELECT "_11"."__a1" AS "milliseconds") AS "_14") AS "_13") AS "_12") AS "tracks_aggregate") AS "_15") AS "albums") AS "_16"))::text;
-- params: [{"kind":"const","value":100},{"kind":"const","value":3}]
