SELECT json_build_object('albums', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."id"
    FROM "public"."albums" AS "_0"
    WHERE (("_0"."title" = $1) AND ("_0"."id" = ANY($2)))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_2"))::text;
-- params: [{"kind":"const","value":"x"},{"kind":"const","value":[1,2]}]
