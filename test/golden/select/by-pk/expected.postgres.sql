SELECT json_build_object('albums_by_pk', (SELECT json_build_object('id', "_1"."id", 'title', "_1"."title", '__typename', 'albums'::text) FROM (SELECT "_0"."id", "_0"."title" FROM "public"."albums" AS "_0" WHERE ("_0"."id" = $1)) AS "_1" LIMIT 1))::text;
-- params: [{"kind":"variable","name":"id","encoding":"plain","allowNull":false}]
