WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_i0_0" AS (
  INSERT INTO "public"."albums" AS "_0" ("color", "id", "meta", "title")
  SELECT "r"."color", "r"."id", "r"."meta", "r"."title"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."albums", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT (
  SELECT json_build_object('id', "_1"."id")
  FROM "_i0_0" AS "_1"
  LIMIT 1)::text, set_config('engine.session', $2, true);
-- params: [{"kind":"json-doc","doc":{"kind":"array","items":[{"kind":"object","fields":[["id",{"kind":"const","value":1}],["title",{"kind":"variable","name":"title"}],["meta",{"kind":"variable","name":"meta"}],["color",{"kind":"const","value":"red"}]]}]}},{"kind":"session-object"}]
