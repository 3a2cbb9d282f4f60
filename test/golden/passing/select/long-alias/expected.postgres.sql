SELECT json_build_object('albums', (
  SELECT coalesce(json_agg(json_build_object('id', "_1"."id", 'a_key_that_is_longer_than_sixty_three_bytes_which_postgres_would_truncate', "_1"."title", 'artist', "_2"."o") ORDER BY "_1"."id" ASC NULLS LAST), '[]'::json)
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
    LIMIT 1) AS "_2" ON true))::text;
-- params: [{"kind":"const","value":2}]
