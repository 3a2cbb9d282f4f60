SELECT json_build_object('tracks', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."bytes", "_0"."unit_price", "_0"."milliseconds"
    FROM "public"."tracks" AS "_0") AS "_1",
  LATERAL (
    SELECT ("_1"."bytes")::text AS "bytes", ("_1"."unit_price")::text AS "unit_price", "_1"."milliseconds" AS "milliseconds") AS "_2"), 'tracks_aggregate', (
  SELECT json_build_object('aggregate', json_build_object('sum', json_build_object('bytes', (sum("_4"."bytes"))::text)))
  FROM (
    SELECT "_3"."bytes"
    FROM "public"."tracks" AS "_3") AS "_4"))::text;
-- params: []
