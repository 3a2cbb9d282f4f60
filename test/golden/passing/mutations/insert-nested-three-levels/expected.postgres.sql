WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_r1" AS (
  SELECT row_number() OVER (ORDER BY "o"."__ord") AS "__ord", "o"."__ord" AS "__pord", "o"."__j" -> 'album' -> 'data' AS "__j"
  FROM "_r0" AS "o"
  WHERE jsonb_typeof("o"."__j" -> 'album' -> 'data') = 'object'), "_r2" AS (
  SELECT row_number() OVER (ORDER BY "o"."__ord") AS "__ord", "o"."__ord" AS "__pord", "o"."__j" -> 'artist' -> 'data' AS "__j"
  FROM "_r1" AS "o"
  WHERE jsonb_typeof("o"."__j" -> 'artist' -> 'data') = 'object'), "_s2_0" AS (
  SELECT "s"."__ord", "s"."__pord", "r"."id" AS "id", "r"."name" AS "name"
  FROM "_r2" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."artists", "s"."__j") AS "r"), "_i2_0" AS (MERGE INTO "public"."artists" AS "_0" USING (
  SELECT *
  FROM "_s2_0"
  ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN INSERT ("id", "name") VALUES ("m"."id", "m"."name") RETURNING "m"."__ord", "m"."__pord", "_0".*), "_n2" AS (
  SELECT *
  FROM "_i2_0"), "_s1_0" AS (
  SELECT "s"."__ord", "s"."__pord", "p0"."id" AS "artist_id", "r"."id" AS "id", "r"."title" AS "title"
  FROM "_r1" AS "s"
  JOIN "_n2" AS "p0" ON "p0"."__pord" = "s"."__ord"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."albums", "s"."__j") AS "r"), "_i1_0" AS (MERGE INTO "public"."albums" AS "_1" USING (
  SELECT *
  FROM "_s1_0"
  ORDER BY "__ord") AS "m" ON false WHEN NOT MATCHED THEN INSERT ("artist_id", "id", "title") VALUES ("m"."artist_id", "m"."id", "m"."title") RETURNING "m"."__ord", "m"."__pord", "_1".*), "_n1" AS (
  SELECT *
  FROM "_i1_0"), "_i0_0" AS (
  INSERT INTO "public"."tracks" AS "_2" ("album_id", "id", "name")
  SELECT "p0"."id", "r"."id", "r"."name"
  FROM "_r0" AS "s"
  JOIN "_n1" AS "p0" ON "p0"."__pord" = "s"."__ord"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."tracks", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT set_config('engine.mutation', (json_build_object('affected_rows', ((
  SELECT count(*)
  FROM "_i2_0") + (
  SELECT count(*)
  FROM "_i1_0") + (
  SELECT count(*)
  FROM "_i0_0")), 'keys', (
  SELECT coalesce(json_agg(json_build_object('id', "_3"."id")), '[]'::json)
  FROM "_i0_0" AS "_3")))::text, true)::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"[{\"id\":100,\"name\":\"T\",\"album\":{\"data\":{\"id\":10,\"title\":\"A\",\"artist\":{\"data\":{\"id\":1,\"name\":\"Ann\"}}}}}]"},{"kind":"session-object"}]

SELECT (json_build_object('affected_rows', ("c"."v" ->> 'affected_rows')::bigint, 'returning', (
  SELECT coalesce(json_agg(json_build_object('id', "_0"."id", 'album', (
    SELECT row_to_json("_7")
    FROM (
      SELECT "_1"."title", "_1"."artist_id"
      FROM "public"."albums" AS "_1"
      WHERE "_1"."id" = "_0"."album_id") AS "_2"
    LEFT JOIN LATERAL (
      SELECT row_to_json("_6") AS "o"
      FROM (
        SELECT "_4"."name"
        FROM "public"."artists" AS "_4"
        WHERE "_4"."id" = "_2"."artist_id") AS "_5",
      LATERAL (
        SELECT "_5"."name" AS "name") AS "_6"
      LIMIT 1) AS "_3" ON true,
    LATERAL (
      SELECT "_2"."title" AS "title", "_3"."o" AS "artist") AS "_7"
    LIMIT 1)) ORDER BY "_0_k"."ord"), '[]'::json)
  FROM jsonb_array_elements("c"."v" -> 'keys') WITH ORDINALITY AS "_0_k"("v", "ord")
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."tracks", "_0_k"."v") AS "_0_kr"
  JOIN "public"."tracks" AS "_0" ON "_0"."id" = "_0_kr"."id")))::text
FROM (
  SELECT current_setting('engine.mutation')::jsonb AS "v") AS "c";
-- params: []
