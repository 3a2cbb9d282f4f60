SELECT json_build_object('albums_connection', (
  WITH "_3" AS (
    SELECT "_1".*, row_number() OVER (ORDER BY "_1"."__k0" ASC NULLS LAST, "_1"."__k1" DESC NULLS FIRST, "_1"."__k2" ASC NULLS LAST) AS "__rn"
    FROM (
      SELECT "_0"."id", "_0"."title", (
        SELECT "_2"."name"
        FROM "public"."artists" AS "_2"
        WHERE "_2"."id" = "_0"."artist_id"
        LIMIT 1) AS "__k0", "_0"."title" AS "__k1", "_0"."id" AS "__k2"
      FROM "public"."albums" AS "_0"
      WHERE ("_0"."artist_id" < $1)) AS "_1"), "_4" AS (
    SELECT "_6".*
    FROM "_3" AS "_6", (
      SELECT ($2)::json AS "c") AS "_5"
    WHERE ("_5"."c" IS NULL OR ((("_5"."c" #>> '{"artist","name"}')::text IS NOT NULL AND ("_6"."__k0" IS NULL OR "_6"."__k0" > ("_5"."c" #>> '{"artist","name"}')::text)) OR ("_6"."__k0" IS NOT DISTINCT FROM ("_5"."c" #>> '{"artist","name"}')::text AND ((("_5"."c" #>> '{"title"}')::text IS NULL AND "_6"."__k1" IS NOT NULL) OR "_6"."__k1" < ("_5"."c" #>> '{"title"}')::text)) OR ("_6"."__k0" IS NOT DISTINCT FROM ("_5"."c" #>> '{"artist","name"}')::text AND "_6"."__k1" IS NOT DISTINCT FROM ("_5"."c" #>> '{"title"}')::text AND (("_5"."c" #>> '{"id"}')::int4 IS NOT NULL AND ("_6"."__k2" IS NULL OR "_6"."__k2" > ("_5"."c" #>> '{"id"}')::int4)))))), "_7" AS (
    SELECT *
    FROM "_4"
    ORDER BY "__rn"
    LIMIT $3)
  SELECT json_build_object('edges', (
    SELECT coalesce(json_agg(json_build_object('cursor', translate(encode(convert_to(json_build_object('artist', json_build_object('name', "_8"."__k0"), 'title', "_8"."__k1", 'id', "_8"."__k2")::text, 'UTF8'), 'base64'), E'\n', ''), 'node', json_build_object('id', translate(encode(convert_to(json_build_array(1, 'public', 'albums', "_8"."id")::text, 'UTF8'), 'base64'), E'\n', ''), 'title', "_8"."title")) ORDER BY "_8"."__rn"), '[]'::json)
    FROM "_7" AS "_8"), 'pageInfo', json_build_object('hasNextPage', EXISTS (
    SELECT 1
    FROM "_3"
    WHERE "__rn" > (
      SELECT max("__rn")
      FROM "_7")), 'hasPreviousPage', EXISTS (
    SELECT 1
    FROM "_3"
    WHERE "__rn" < (
      SELECT min("__rn")
      FROM "_7")), 'startCursor', (
    SELECT translate(encode(convert_to(json_build_object('artist', json_build_object('name', "_9"."__k0"), 'title', "_9"."__k1", 'id', "_9"."__k2")::text, 'UTF8'), 'base64'), E'\n', '')
    FROM "_7" AS "_9"
    ORDER BY "_9"."__rn" ASC
    LIMIT 1), 'endCursor', (
    SELECT translate(encode(convert_to(json_build_object('artist', json_build_object('name', "_10"."__k0"), 'title', "_10"."__k1", 'id', "_10"."__k2")::text, 'UTF8'), 'base64'), E'\n', '')
    FROM "_7" AS "_10"
    ORDER BY "_10"."__rn" DESC
    LIMIT 1)))))::text;
-- params: [{"kind":"const","value":100},{"kind":"variable","name":"after","encoding":"relay-cursor","allowNull":true},{"kind":"variable","name":"first","encoding":"row-count","allowNull":true}]
