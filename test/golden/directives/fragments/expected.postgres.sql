SELECT json_build_object('albums', (SELECT coalesce(json_agg(json_build_object('title', "_1"."title", 't', "_1"."title")), '[]'::json) FROM (SELECT "_0"."title" FROM "public"."albums" AS "_0") AS "_1"))::text;
-- params: []
