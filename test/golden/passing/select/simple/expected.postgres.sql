SELECT json_build_object('albums', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."title"
    FROM "public"."albums" AS "_0") AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."title" AS "title") AS "_2"))::text;
-- params: []
