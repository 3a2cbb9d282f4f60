SELECT json_build_object('search_genres_aggregate', (
  SELECT json_build_object('aggregate', json_build_object('count', count(*)), 'nodes', coalesce(json_agg("_2"), '[]'::json))
  FROM (
    SELECT "_0"."name"
    FROM "public"."search_genres"("q" => $1, "max" => $2, "engine_session" => $3) AS "_0") AS "_1",
  LATERAL (
    SELECT "_1"."name" AS "name") AS "_2"))::text;
-- params: [{"kind":"const","value":"a"},{"kind":"const","value":3},{"kind":"session-object"}]
