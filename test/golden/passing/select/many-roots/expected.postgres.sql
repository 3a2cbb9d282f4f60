SELECT json_build_object('__typename', ($1)::json, 'a', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."id"
    FROM "public"."albums" AS "_0"
    LIMIT $2) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_2"), 'genres', (
  SELECT coalesce(json_agg("_5"), '[]'::json)
  FROM (
    SELECT "_3"."name"
    FROM "public"."genres" AS "_3") AS "_4",
  LATERAL (
    SELECT "_4"."name" AS "name") AS "_5"), 'g2', (
  SELECT row_to_json("_8")
  FROM (
    SELECT "_6"."name"
    FROM "public"."genres" AS "_6"
    WHERE ("_6"."id" = $3)) AS "_7",
  LATERAL (
    SELECT "_7"."name" AS "name") AS "_8"
  LIMIT 1))::text;
-- params: [{"kind":"const","value":"\"query_root\""},{"kind":"const","value":1},{"kind":"const","value":2}]
