WITH "_w" AS (
  UPDATE "public"."tracks" AS "_0"
  SET "name" = "_2"."name"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."tracks", "_1"."j") AS "_2"
  WHERE ("_0"."id" = $2)
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $3, true);
-- params: [{"kind":"const","value":"{\"name\":\"a\"}"},{"kind":"const","value":1},{"kind":"session-object"}]

WITH "_w" AS (
  UPDATE "public"."tracks" AS "_0"
  SET "milliseconds" = "_0"."milliseconds" + "_2"."milliseconds"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."tracks", "_1"."j") AS "_2"
  WHERE ("_0"."id" = $2)
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $3, true);
-- params: [{"kind":"const","value":"{\"milliseconds\":1}"},{"kind":"const","value":2},{"kind":"session-object"}]
