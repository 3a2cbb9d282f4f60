SELECT json_build_object('albums', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."id", "_0"."meta", "_0"."color"
    FROM "public"."albums" AS "_0"
    WHERE (("_0"."meta" @> ($1)::jsonb) AND ("_0"."meta" ? ($2)::text) AND ("_0"."meta" ?| ($3)::text[]) AND (("_0"."meta")::text LIKE $4) AND ("_0"."color" = $5))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."meta" AS "meta", "_1"."color" AS "color") AS "_2"), 'artists', (
  SELECT coalesce(json_agg("_5"), '[]'::json)
  FROM (
    SELECT "_3"."tags"
    FROM "public"."artists" AS "_3"
    WHERE ("_3"."tags" @> $6)) AS "_4",
  LATERAL (
    SELECT "_4"."tags" AS "tags") AS "_5"))::text;
-- params: [{"kind":"const","value":"{\"a\":1}"},{"kind":"const","value":"a"},{"kind":"const","value":["b","c"]},{"kind":"const","value":"%z%"},{"kind":"const","value":"red"},{"kind":"const","value":["rock"]}]
