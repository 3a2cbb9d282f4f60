SELECT json_build_object('albums', (
  SELECT coalesce(json_agg("_2" ORDER BY "_1"."title" DESC NULLS FIRST, "_1"."id" ASC NULLS FIRST), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."title"
    FROM "public"."albums" AS "_0"
    WHERE (("_0"."title" LIKE $1) AND ("_0"."id" > $2))
    ORDER BY "_0"."title" DESC NULLS FIRST, "_0"."id" ASC NULLS FIRST
    LIMIT $3 OFFSET $4) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."title" AS "title") AS "_2"))::text;
-- params: [{"kind":"const","value":"%Rock%"},{"kind":"const","value":3},{"kind":"const","value":10},{"kind":"const","value":5}]
