WITH "_w" AS (
  UPDATE "public"."albums" AS "_0"
  SET "title" = "_2"."title"
  FROM (
    SELECT ($1)::jsonb AS "j") AS "_1", jsonb_populate_record(NULL::"public"."albums", "_1"."j") AS "_2"
  WHERE ("_0"."id" = $2)
  RETURNING "_0".*)
SELECT (
  SELECT json_build_object('id', "_3"."id", 'title', "_3"."title")
  FROM "_w" AS "_3"
  LIMIT 1)::text, set_config('engine.session', $3, true);
-- params: [{"kind":"variable","name":"set","encoding":"json","allowNull":true},{"kind":"variable","name":"id","encoding":"plain","allowNull":false},{"kind":"session-object"}]
