SELECT json_build_object('in', (
  SELECT coalesce(json_agg("_4"), '[]'::json)
  FROM (
    SELECT "_0"."tags"
    FROM "public"."artists" AS "_0"
    WHERE ("_0"."tags" = ANY (
      SELECT ARRAY(
        SELECT "_3".x
        FROM jsonb_array_elements_text("_2".v) WITH ORDINALITY AS "_3"(x, n)
        ORDER BY "_3".n)::"_text"
      FROM jsonb_array_elements(($1)::jsonb) AS "_2"(v)))) AS "_1",
  LATERAL (
    SELECT "_1"."tags" AS "tags") AS "_4"), 'nin', (
  SELECT coalesce(json_agg("_9"), '[]'::json)
  FROM (
    SELECT "_5"."tags"
    FROM "public"."artists" AS "_5"
    WHERE (NOT ("_5"."tags" = ANY (
      SELECT ARRAY(
        SELECT "_8".x
        FROM jsonb_array_elements_text("_7".v) WITH ORDINALITY AS "_8"(x, n)
        ORDER BY "_8".n)::"_text"
      FROM jsonb_array_elements(($2)::jsonb) AS "_7"(v))))) AS "_6",
  LATERAL (
    SELECT "_6"."tags" AS "tags") AS "_9"))::text;
-- params: [{"kind":"json-doc","doc":{"kind":"array","items":[{"kind":"const","value":["rock"]},{"kind":"variable","name":"one"},{"kind":"const","value":[]}]}},{"kind":"variable","name":"tags","encoding":"json","allowNull":false}]
