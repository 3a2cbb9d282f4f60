SELECT json_build_object('shop_orders', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."total", "_0"."placed_at"
    FROM "shop"."orders" AS "_0"
    WHERE ("_0"."placed_at" >= $1)) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."total" AS "total", "_1"."placed_at" AS "placedAt") AS "_2"))::text;
-- params: [{"kind":"const","value":"2020-01-01"}]
