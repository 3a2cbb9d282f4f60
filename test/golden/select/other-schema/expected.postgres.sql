SELECT json_build_object('shop_orders', (SELECT coalesce(json_agg(json_build_object('id', "_1"."id", 'total', "_1"."total", 'placedAt', "_1"."placed_at")), '[]'::json) FROM (SELECT "_0"."id", "_0"."total", "_0"."placed_at" FROM "shop"."orders" AS "_0" WHERE ("_0"."placed_at" >= $1)) AS "_1"))::text;
-- params: [{"kind":"const","value":"2020-01-01"}]
