/**
 * A v2 metadata directory (config version 3 layout, `!include`s as v2's client writes them) with
 * one object of every kind the operator has, for the `engine operator export` round-trip tests:
 * two sources (one URL from the environment, one given by value), tables in two schemas with
 * relationships, a computed field and permissions of every operation, an enum table, two tables
 * whose names clash once made Kubernetes names (`user_role`, `user-role`), a tracked function with
 * a permission, an event trigger, a cron trigger, a remote schema, an action with custom types, an
 * inherited role, a query collection in the allow-list and a REST endpoint. Header values and
 * the second source's URL are given by value: they are the secrets the export must move out.
 * `unexpressible` adds what no kind has (remote schema permissions, api_limits, introspection).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where the directory's databases and servers are. */
export interface V2DirOptions {
  /** The variable the `default` source's URL is read from. */
  readonly defaultDbEnv: string;
  /** The second source's URL, given by value (a secret). */
  readonly chinookUrl: string;
  readonly remoteSchemaUrl: string;
  /** Base URL of the webhooks and the action handler. */
  readonly hooks: string;
  readonly unexpressible?: boolean;
}

/** The SQL of the `default` source's database. */
export const V2_DEFAULT_SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id));
CREATE TABLE user_role (id serial PRIMARY KEY);
CREATE TABLE "user-role" (id serial CONSTRAINT user_role_dashed_pkey PRIMARY KEY);
CREATE SCHEMA content;
CREATE TABLE content.tag (value text PRIMARY KEY, comment text);
INSERT INTO content.tag VALUES ('news', 'News'), ('howto', 'How-to');
CREATE FUNCTION article_title_upper(a article) RETURNS text LANGUAGE sql STABLE AS $$ SELECT upper(a.title) $$;
CREATE FUNCTION search_articles(search text) RETURNS SETOF article LANGUAGE sql STABLE AS $$ SELECT * FROM article WHERE title ILIKE '%' || search || '%' $$;
`;

/** The SQL of the second source's database. */
export const V2_CHINOOK_SQL = `CREATE TABLE album (id serial PRIMARY KEY, title text NOT NULL);`;

/** The SDL of the remote schema the directory names. */
export const V2_REMOTE_SDL = 'type Query { country(code: String!): Country } type Country { code: String! name: String! }';

function write(dir: string, file: string, text: string): void {
  const p = path.join(dir, file);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text.trimStart());
}

/**
 * Writes the directory; answers the secrets it gives by value, by where they are (the paths
 * `engine operator export` reports).
 */
export function writeV2MetadataDir(dir: string, o: V2DirOptions): Record<string, string> {
  write(dir, 'version.yaml', 'version: 3\n');
  write(
    dir,
    'databases/databases.yaml',
    `
- name: default
  kind: postgres
  configuration:
    connection_info:
      database_url:
        from_env: ${o.defaultDbEnv}
      isolation_level: read-committed
      pool_settings:
        connection_lifetime: 600
        idle_timeout: 180
        max_connections: 10
        retries: 1
      use_prepared_statements: true
  tables: "!include default/tables/tables.yaml"
  functions: "!include default/functions/functions.yaml"
- name: chinook
  kind: postgres
  configuration:
    connection_info:
      database_url: ${o.chinookUrl}
      isolation_level: read-committed
      use_prepared_statements: false
  tables: "!include chinook/tables/tables.yaml"
`,
  );
  write(
    dir,
    'databases/default/tables/tables.yaml',
    `
- "!include public_author.yaml"
- "!include public_article.yaml"
- "!include public_user_role.yaml"
- "!include public_user-role.yaml"
- "!include content_tag.yaml"
`,
  );
  write(
    dir,
    'databases/default/tables/public_author.yaml',
    `
table:
  name: author
  schema: public
configuration:
  custom_root_fields:
    select_by_pk: writer
array_relationships:
  - name: articles
    using:
      foreign_key_constraint_on:
        column: author_id
        table:
          name: article
          schema: public
insert_permissions:
  - role: user
    permission:
      check:
        id:
          _eq: X-Hasura-User-Id
      columns:
        - name
select_permissions:
  - role: user
    permission:
      columns:
        - id
        - name
      filter: {}
      limit: 10
    comment: readers see ten authors
event_triggers:
  - name: author_created
    definition:
      enable_manual: false
      insert:
        columns: "*"
    retry_conf:
      interval_sec: 10
      num_retries: 3
      timeout_sec: 60
    webhook: ${o.hooks}/author
    headers:
      - name: X-Api-Key
        value: hook-key-123
      - name: X-Trace
        value_from_env: HOOK_TRACE
`,
  );
  write(
    dir,
    'databases/default/tables/public_article.yaml',
    `
table:
  name: article
  schema: public
object_relationships:
  - name: author
    using:
      foreign_key_constraint_on: author_id
computed_fields:
  - name: title_upper
    definition:
      function:
        name: article_title_upper
        schema: public
    comment: the title in capitals
select_permissions:
  - role: user
    permission:
      columns:
        - id
        - title
        - author_id
      computed_fields:
        - title_upper
      filter:
        author:
          id:
            _eq: X-Hasura-User-Id
update_permissions:
  - role: user
    permission:
      columns:
        - title
      filter:
        author_id:
          _eq: X-Hasura-User-Id
      check: {}
delete_permissions:
  - role: user
    permission:
      filter:
        author_id:
          _eq: X-Hasura-User-Id
`,
  );
  write(dir, 'databases/default/tables/public_user_role.yaml', 'table:\n  name: user_role\n  schema: public\n');
  write(
    dir,
    'databases/default/tables/public_user-role.yaml',
    'table:\n  name: user-role\n  schema: public\nconfiguration:\n  custom_name: user_role_dashed\n',
  );
  write(dir, 'databases/default/tables/content_tag.yaml', 'table:\n  name: tag\n  schema: content\nis_enum: true\n');
  write(dir, 'databases/default/functions/functions.yaml', '- "!include public_search_articles.yaml"\n');
  write(
    dir,
    'databases/default/functions/public_search_articles.yaml',
    `
function:
  name: search_articles
  schema: public
configuration:
  custom_root_fields:
    function: find_articles
permissions:
  - role: user
`,
  );
  write(dir, 'databases/chinook/tables/tables.yaml', '- "!include public_album.yaml"\n');
  write(
    dir,
    'databases/chinook/tables/public_album.yaml',
    `
table:
  name: album
  schema: public
select_permissions:
  - role: user
    permission:
      columns: "*"
      filter: {}
`,
  );
  write(
    dir,
    'remote_schemas.yaml',
    `
- name: countries
  definition:
    url: ${o.remoteSchemaUrl}
    timeout_seconds: 30
    headers:
      - name: Authorization
        value: Bearer rs-token-456
  comment: the countries service
${
  o.unexpressible === true
    ? `  permissions:
    - role: user
      definition:
        schema: "type Query { country(code: String!): Country } type Country { code: String! }"
`
    : ''
}`,
  );
  write(
    dir,
    'cron_triggers.yaml',
    `
- name: nightly_report
  webhook: ${o.hooks}/cron
  schedule: 0 3 * * *
  include_in_metadata: true
  payload:
    kind: nightly
  retry_conf:
    num_retries: 2
    retry_interval_seconds: 30
    timeout_seconds: 60
    tolerance_seconds: 21600
  headers:
    - name: X-Cron-Secret
      value: cron-secret-789
  comment: every night
`,
  );
  write(
    dir,
    'actions.yaml',
    `
actions:
  - name: greet
    definition:
      kind: synchronous
      handler: ${o.hooks}/greet
      forward_client_headers: true
      headers:
        - name: X-Action-Key
          value: action-key-000
      timeout: 20
    permissions:
      - role: user
    comment: says hello
custom_types:
  enums: []
  input_objects: []
  objects:
    - name: Greeting
  scalars: []
`,
  );
  write(dir, 'actions.graphql', 'type Query {\n  greet(name: String!): Greeting\n}\n\ntype Greeting {\n  text: String!\n  length: Int\n}\n');
  write(dir, 'inherited_roles.yaml', '- role_name: reader_writer\n  role_set:\n    - user\n    - editor\n');
  write(
    dir,
    'query_collections.yaml',
    `
- name: allowed-queries
  definition:
    queries:
      - name: authors
        query: "query authors { author { id name } }"
      - name: author_by_id
        query: "query author_by_id($id: Int!) { writer(id: $id) { id name } }"
`,
  );
  write(dir, 'allow_list.yaml', '- collection: allowed-queries\n  scope:\n    global: false\n    roles:\n      - user\n');
  write(
    dir,
    'rest_endpoints.yaml',
    `
- name: author_by_id
  url: authors/:id
  methods:
    - GET
  definition:
    query:
      collection_name: allowed-queries
      query_name: author_by_id
  comment: one author
`,
  );
  if (o.unexpressible === true) {
    write(dir, 'api_limits.yaml', 'disabled: false\ndepth_limit:\n  global: 10\n');
    write(dir, 'graphql_schema_introspection.yaml', 'disabled_for_roles:\n  - user\n');
  }
  return {
    'sources[chinook].configuration.connection_info.database_url': o.chinookUrl,
    'sources[default].tables[public.author].event_triggers[author_created].headers[X-Api-Key]': 'hook-key-123',
    'remote_schemas[countries].definition.headers[Authorization]': 'Bearer rs-token-456',
    'cron_triggers[nightly_report].headers[X-Cron-Secret]': 'cron-secret-789',
    'actions[greet].definition.headers[X-Action-Key]': 'action-key-000',
  };
}
