SELECT json_build_object('genres', (
  SELECT coalesce(json_agg("_2" ORDER BY "_1"."id" ASC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_0"."id", (CASE WHEN (("_0"."id" < $1)) IS TRUE THEN "_0"."name" END) AS "name", (CASE WHEN (("_0"."id" < $2)) IS TRUE THEN "public"."genre_shout"("_0") END) AS "__c0"
    FROM "public"."genres" AS "_0"
    WHERE (("_0"."id" < $3) OR ("_0"."id" > $4))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."name" AS "name", "_1"."__c0" AS "shout") AS "_2"))::text;
-- params: [{"kind":"const","value":3},{"kind":"const","value":3},{"kind":"const","value":3},{"kind":"const","value":1}]
