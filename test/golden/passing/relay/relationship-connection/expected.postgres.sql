SELECT json_build_object('artists_connection', (
  WITH "_2" AS (
    SELECT "_1".*, row_number() OVER (ORDER BY "_1"."__k0" ASC NULLS LAST) AS "__rn"
    FROM (
      SELECT "_0"."name", "_0"."id", "_0"."id" AS "__k0"
      FROM "public"."artists" AS "_0") AS "_1"), "_3" AS (
    SELECT *
    FROM (
      SELECT *
      FROM "_2"
      ORDER BY "__rn" DESC
      LIMIT $1) AS "_4")
  SELECT json_build_object('edges', (
    SELECT coalesce(json_agg(json_build_object('node', json_build_object('name', "_5"."name", 'albums_connection', (
      WITH "_8" AS (
        SELECT "_7".*, row_number() OVER (ORDER BY "_7"."__k0" ASC NULLS LAST) AS "__rn"
        FROM (
          SELECT "_6"."title", "_6"."id" AS "__k0"
          FROM "public"."albums" AS "_6"
          WHERE "_6"."artist_id" = "_5"."id") AS "_7"), "_9" AS (
        SELECT *
        FROM "_8"
        ORDER BY "__rn"
        LIMIT $2)
      SELECT json_build_object('edges', (
        SELECT coalesce(json_agg(json_build_object('cursor', translate(encode(convert_to(json_build_object('id', "_10"."__k0")::text, 'UTF8'), 'base64'), E'\n', ''), 'node', json_build_object('title', "_10"."title")) ORDER BY "_10"."__rn"), '[]'::json)
        FROM "_9" AS "_10"))))) ORDER BY "_5"."__rn"), '[]'::json)
    FROM "_3" AS "_5"))))::text;
-- params: [{"kind":"const","value":1},{"kind":"const","value":1}]
