SELECT json_build_object('search_genres', (
  SELECT coalesce(json_agg("_2" ORDER BY "_1"."name" ASC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."name"
    FROM "public"."search_genres"("q" => $1, "engine_session" => $2) AS "_0"
    WHERE ("_0"."name" ILIKE $3)
    ORDER BY "_0"."name" ASC NULLS LAST
    LIMIT $4) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."name" AS "name") AS "_2"))::text;
-- params: [{"kind":"variable","name":"q","encoding":"plain","allowNull":true},{"kind":"session-object"},{"kind":"const","value":"%rock%"},{"kind":"const","value":5}]
