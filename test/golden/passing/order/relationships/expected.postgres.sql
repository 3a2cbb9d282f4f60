SELECT json_build_object('tracks', (
  SELECT coalesce(json_agg("_5" ORDER BY "_1"."__o0" ASC NULLS LAST, "_1"."__o1" DESC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_0"."id", (
      SELECT (
        SELECT "_3"."name"
        FROM "public"."artists" AS "_3"
        WHERE "_3"."id" = "_2"."artist_id"
        LIMIT 1)
      FROM "public"."albums" AS "_2"
      WHERE "_2"."id" = "_0"."album_id"
      LIMIT 1) AS "__o0", (
      SELECT "_4"."title"
      FROM "public"."albums" AS "_4"
      WHERE "_4"."id" = "_0"."album_id"
      LIMIT 1) AS "__o1"
    FROM "public"."tracks" AS "_0") AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_5"), 'artists', (
  SELECT coalesce(json_agg("_10" ORDER BY "_7"."__o0" DESC NULLS FIRST, "_7"."__o1" ASC NULLS LAST), '[]'::json)
  FROM (
    SELECT "_6"."id", (
      SELECT count(*)
      FROM "public"."albums" AS "_8"
      WHERE "_8"."artist_id" = "_6"."id") AS "__o0", (
      SELECT max("_9"."id")
      FROM "public"."albums" AS "_9"
      WHERE "_9"."artist_id" = "_6"."id") AS "__o1"
    FROM "public"."artists" AS "_6") AS "_7",
  LATERAL (
    SELECT "_7"."id" AS "id") AS "_10"))::text;
-- params: []
