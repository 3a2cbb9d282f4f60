SELECT json_build_object('albums', (
  SELECT coalesce(json_agg("_10"), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."title", "_0"."artist_id"
    FROM "public"."albums" AS "_0"
    WHERE EXISTS (
      SELECT 1
      FROM "public"."artists" AS "_2"
      WHERE ("_2"."id" = "_0"."artist_id" AND ("_2"."id" = $1)))
    LIMIT LEAST(($2)::bigint, ($3)::bigint)) AS "_1"
  LEFT JOIN LATERAL (
    SELECT row_to_json("_6") AS "o"
    FROM (
      SELECT "_4"."name"
      FROM "public"."artists" AS "_4"
      WHERE "_4"."id" = "_1"."artist_id") AS "_5",
    LATERAL (
      SELECT "_5"."name" AS "name") AS "_6"
    LIMIT 1) AS "_3" ON true,
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."title" AS "title", "_3"."o" AS "artist", (
      SELECT coalesce(json_agg("_9"), '[]'::json)
      FROM (
        SELECT "_7"."name"
        FROM "public"."tracks" AS "_7"
        WHERE "_7"."album_id" = "_1"."id") AS "_8",
      LATERAL (
        SELECT "_8"."name" AS "name") AS "_9") AS "tracks") AS "_10"), 'artists_aggregate', (
  SELECT json_build_object('aggregate', json_build_object('count', count(*)))
  FROM (
    SELECT 1 AS "__one"
    FROM "public"."artists" AS "_11") AS "_12"))::text;
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":50},{"kind":"const","value":10}]
