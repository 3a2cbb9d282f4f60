SELECT json_build_object('tracks_aggregate', (
  SELECT json_build_object('aggregate', json_build_object('count', count(*), 'c2', count(DISTINCT "_1"."album_id"), 'sum', json_build_object('milliseconds', sum("_1"."milliseconds"), 'bytes', sum("_1"."bytes")), 'avg', json_build_object('unit_price', avg("_1"."unit_price")), 'max', json_build_object('name', max("_1"."name"))), 'nodes', coalesce(json_agg("_2"), '[]'::json))
  FROM (
    SELECT "_0"."album_id", "_0"."milliseconds", "_0"."bytes", "_0"."unit_price", "_0"."name", "_0"."id"
    FROM "public"."tracks" AS "_0"
    WHERE ("_0"."milliseconds" > $1)) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_2"))::text;
-- params: [{"kind":"const","value":1000}]
