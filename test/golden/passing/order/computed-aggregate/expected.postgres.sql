SELECT json_build_object('genres', (
  SELECT coalesce(json_agg("_4" ORDER BY "_1"."__o0" DESC NULLS FIRST, "_1"."__o1" ASC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_0"."id", (
      SELECT count(*)
      FROM "public"."similar_genres"("_0", "engine_session" => $1) AS "_2") AS "__o0", (
      SELECT max("_3"."id")
      FROM "public"."similar_genres"("_0", "engine_session" => $2) AS "_3") AS "__o1"
    FROM "public"."genres" AS "_0") AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_4"))::text;
-- params: [{"kind":"session-object"},{"kind":"session-object"}]
