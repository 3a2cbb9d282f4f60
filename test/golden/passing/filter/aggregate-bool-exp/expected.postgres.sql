SELECT json_build_object('artists', (
  SELECT coalesce(json_agg("_4"), '[]'::json)
  FROM (
    SELECT "_0"."id"
    FROM "public"."artists" AS "_0"
    WHERE EXISTS (
      SELECT 1
      FROM (
        SELECT count(*) AS "aggregate_value"
        FROM "public"."albums" AS "_2"
        WHERE ("_2"."artist_id" = "_0"."id" AND ("_2"."title" LIKE $1))) AS "_3"
      WHERE ("_3"."aggregate_value" > $2))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_4"), 'distinct', (
  SELECT coalesce(json_agg("_9"), '[]'::json)
  FROM (
    SELECT "_5"."id"
    FROM "public"."artists" AS "_5"
    WHERE EXISTS (
      SELECT 1
      FROM (
        SELECT count(DISTINCT "_7"."title") AS "aggregate_value"
        FROM "public"."albums" AS "_7"
        WHERE "_7"."artist_id" = "_5"."id") AS "_8"
      WHERE ("_8"."aggregate_value" = $3))) AS "_6",
  LATERAL (
    SELECT "_6"."id" AS "id") AS "_9"))::text;
-- params: [{"kind":"const","value":"A%"},{"kind":"const","value":1},{"kind":"const","value":2}]
