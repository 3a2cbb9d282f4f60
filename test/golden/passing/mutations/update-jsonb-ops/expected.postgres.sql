WITH "_w" AS (
  UPDATE "public"."albums" AS "_0"
  SET "meta" = "_2"."meta" || "_0"."meta"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."albums", "_1"."j") AS "_2"
  WHERE true
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"{\"meta\":[0]}"},{"kind":"session-object"}]

WITH "_w" AS (
  UPDATE "public"."albums" AS "_0"
  SET "meta" = "_0"."meta" - ("_1"."j" ->> 'meta')
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1"
  WHERE true
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"{\"meta\":\"k\"}"},{"kind":"session-object"}]

WITH "_w" AS (
  UPDATE "public"."albums" AS "_0"
  SET "meta" = "_0"."meta" - ("_1"."j" ->> 'meta')::int
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1"
  WHERE true
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"{\"meta\":1}"},{"kind":"session-object"}]

WITH "_w" AS (
  UPDATE "public"."albums" AS "_0"
  SET "meta" = "_0"."meta" #- ARRAY(
    SELECT jsonb_array_elements_text("_1"."j" -> 'meta'))
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1"
  WHERE true
  RETURNING "_0".*)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_w"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"const","value":"{\"meta\":[\"x\",\"y\"]}"},{"kind":"session-object"}]
