SELECT json_build_object('genres', (
  SELECT coalesce(json_agg("_5" ORDER BY "_1"."__o0" DESC NULLS FIRST), '[]'::json)
  FROM (
    SELECT "_0"."id", "public"."genre_shout"("_0") AS "__o0", "public"."genre_shout"("_0") AS "__c0", (
      SELECT coalesce(json_agg("_4"), '[]'::json)
      FROM (
        SELECT "_2"."id", "public"."genre_shout"("_2") AS "__c0"
        FROM "public"."similar_genres"("_0", "depth" => $1, "engine_session" => $2) AS "_2"
        WHERE ("_2"."id" <> $3)
        LIMIT $4) AS "_3",
      LATERAL (
        SELECT "_3"."id" AS "id", "_3"."__c0" AS "shout") AS "_4") AS "__c1"
    FROM "public"."genres" AS "_0"
    WHERE ("public"."genre_shout"("_0") = $5)) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."__c0" AS "shout", "_1"."__c1" AS "similar") AS "_5"))::text;
-- params: [{"kind":"const","value":2},{"kind":"session-object"},{"kind":"const","value":1},{"kind":"const","value":3},{"kind":"const","value":"ROCK"}]
