SELECT json_build_object('albums', (SELECT coalesce(json_agg(json_build_object('id', "_1"."id", 'title', "_1"."title")), '[]'::json) FROM (SELECT "_0"."id", "_0"."title" FROM "public"."albums" AS "_0") AS "_1"))::text;
-- params: []
