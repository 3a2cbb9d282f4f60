SELECT json_build_object('node', (
  SELECT row_to_json("_2")
  FROM (
    SELECT "_0"."id", "_0"."title"
    FROM "public"."albums" AS "_0"
    WHERE ("_0"."id" = $1)) AS "_1",
  LATERAL (
    SELECT translate(encode(convert_to(json_build_array(1, 'public', 'albums', "_1"."id")::text, 'UTF8'), 'base64'), E'\n', '') AS "id", "_1"."title" AS "title") AS "_2"
  LIMIT 1))::text;
-- params: [{"kind":"const","value":1}]
