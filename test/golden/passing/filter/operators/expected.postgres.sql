SELECT json_build_object('tracks', (
  SELECT coalesce(json_agg("_2"), '[]'::json)
  FROM (
    SELECT "_0"."id"
    FROM "public"."tracks" AS "_0"
    WHERE ((("_0"."id" = ANY($1)) OR ("_0"."name" ILIKE $2) OR (NOT ("_0"."milliseconds" IS NULL))) AND ("_0"."album_id" <> ALL($3)) AND ("_0"."name" ~ $4) AND ("_0"."name" NOT SIMILAR TO $5))) AS "_1",
  LATERAL (
    SELECT "_1"."id" AS "id") AS "_2"))::text;
-- params: [{"kind":"variable","name":"ids","encoding":"plain","allowNull":false},{"kind":"variable","name":"name","encoding":"plain","allowNull":false},{"kind":"const","value":[1,2]},{"kind":"const","value":"^A"},{"kind":"const","value":"%x%"}]
