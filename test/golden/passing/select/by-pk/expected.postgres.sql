SELECT json_build_object('albums_by_pk', (
  SELECT row_to_json("_2")
  FROM (
    SELECT "_0"."id", "_0"."title"
    FROM "public"."albums" AS "_0"
    WHERE ("_0"."id" = $1)) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id", "_1"."title" AS "title", 'albums'::text AS "__typename") AS "_2"
  LIMIT 1))::text;
-- params: [{"kind":"variable","name":"id","encoding":"plain","allowNull":false}]
