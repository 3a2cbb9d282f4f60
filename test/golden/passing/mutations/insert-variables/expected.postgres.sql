WITH "_r0" AS (
  SELECT "e"."ord" AS "__ord", NULL::bigint AS "__pord", "e"."value" AS "__j"
  FROM jsonb_array_elements(($1)::jsonb) WITH ORDINALITY AS "e"("value", "ord")), "_i0_0" AS (
  INSERT INTO "public"."albums" AS "_0" ("id", "meta", "title")
  SELECT "r"."id", "r"."meta", "r"."title"
  FROM "_r0" AS "s"
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"public"."albums", "s"."__j") AS "r"
  ORDER BY "s"."__ord"
  RETURNING *)
SELECT json_build_object('affected_rows', (
  SELECT count(*)
  FROM "_i0_0"))::text, set_config('engine.session', $2, true);
-- params: [{"kind":"variable","name":"rows","encoding":"json","allowNull":true},{"kind":"session-object"}]
