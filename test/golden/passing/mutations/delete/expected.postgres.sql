WITH "_w" AS (
  DELETE
  FROM "public"."artists" AS "_0"
  WHERE ("_0"."name" LIKE $1)
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"), 'returning', (
  SELECT coalesce(json_agg(json_build_object('id', "_1"."id")), '[]'::json)
  FROM "_w" AS "_1"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"A%"},{"kind":"session-object"}]

WITH "_w" AS (
  DELETE
  FROM "public"."genres" AS "_0"
  WHERE ("_0"."id" = $1)
  RETURNING "_0".*)
SELECT (
  SELECT json_build_object('name', "_1"."name")
  FROM "_w" AS "_1"
  LIMIT 1)::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":3},{"kind":"session-object"}]
