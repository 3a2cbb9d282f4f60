/**
 * What every field of every kind means: the one source of the descriptions `kubectl explain`
 * shows (written into the CRDs' openAPI schemas by {@link describeFields}) and of the field
 * reference crds/fields.md (rendered by {@link fieldReference}); both come out of
 * `npm run generate:crds`, and a unit test fails when a field has no description.
 *
 * Note [Field descriptions by path suffix]
 * Most spec fields come from the engine's metadata schemas (engine/model/schemas), which describe
 * the metadata API, not Kubernetes; they are shared by several kinds (a table name, a header, a
 * retry configuration) and carry v2's field names. So descriptions are keyed by the end of the
 * field's path, `*` standing for any one name and a leading `^` anchoring the key at the object's
 * root: `headers.name` describes the name of every header
 * list, `custom_root_fields.*.name` every root field's custom name, `Engine:status.resources` only
 * that field of Engine. The key matching the most names wins, then the longer key, then the key
 * naming its kind. A description already written in a kind's own schema (engineRef, deletionPolicy,
 * Engine's settings) is kept; this table fills every other field.
 */
import type { OpenApiSchema } from './structural.ts';

/** Descriptions by path suffix (Note [Field descriptions by path suffix]). */
export const FIELD_DOCS: Readonly<Record<string, string>> = {
  // Every object.
  '^apiVersion': 'graphql.engine.dev/v1alpha1.',
  '^kind': 'The kind of this resource.',
  '^spec': "What this resource declares in the engine's metadata (the fields of the v2 metadata object).",
  'Engine:^spec': 'Where the engine is (url, serviceRef, or deployment to run it), its admin secret, and how the operator manages its metadata.',
  '^status': 'What the controller observed, written by the controller only.',
  'status.observedGeneration': 'The metadata.generation the controller last acted on.',
  'status.conditions': 'Ready, Reconciling and Stalled (kstatus), with observedGeneration.',
  'conditions.type': 'Ready, Reconciling or Stalled.',
  'conditions.status': 'True, False or Unknown.',
  'conditions.observedGeneration': 'The metadata.generation this condition was set for.',
  'conditions.lastTransitionTime': 'When the status of this condition last changed.',
  'conditions.reason': 'Why, in CamelCase (Applied, InconsistentMetadata, RemoteUnavailable, EngineUnreachable, DependencyMissing, ...).',
  'conditions.message': "The details, such as the engine's reason for an inconsistency.",
  'spec.engineRef.name': 'Name of the Engine resource in this namespace.',
  comment: 'A comment kept with the object in the metadata (v2 `comment`).',

  // Tables, functions and sources.
  'spec.source': 'Name of the source (database) the object is in; defaults to `default`.',
  table: "The table: a name (in the source kind's default schema: public on postgres, dbo on MSSQL) or {schema, name} ({dataset, name} on BigQuery).",
  'table.name': 'Name of the table.',
  'table.schema': 'Schema of the table (postgres, MSSQL).',
  'table.dataset': 'Dataset of the table (BigQuery).',
  'function.name': 'Name of the function.',
  'function.schema': 'Schema of the function (postgres).',
  'function.dataset': 'Dataset of the function (BigQuery).',

  // Source.
  'Source:spec.kind': 'The database kind: postgres (default; also pg), mssql or bigquery.',
  'Source:spec.configuration':
    "The source's connection settings as in v2 (postgres: connection_info.database_url, pool_settings, ...; mssql: connection_info.connection_string); use {from_env: VARIABLE} for secrets.",
  'Source:spec.customization': 'Prefixes, suffixes and namespaces of the GraphQL names of this source (v2 source customization).',
  'customization.root_fields': 'Namespace, prefix and suffix of the root fields of this source.',
  'Source:spec.customization.type_names': 'Prefix and suffix of the GraphQL type names of this source.',
  'customization.naming_convention': 'hasura-default or graphql-default (camelCase fields, PascalCase types).',
  native_queries: 'Native queries of the source (v2 logical models feature), kept as given.',
  logical_models: 'Logical models of the source (v2), kept as given.',
  stored_procedures: 'Stored procedures of the source (v2 MSSQL), kept as given.',
  query_tags: 'Query tags added to the SQL the engine sends (v2 `query_tags`).',
  health_check: "The source's health check settings (v2 `health_check`), kept as given.",

  // TrackedTable.
  'TrackedTable:spec.configuration': 'Custom names and root fields of the table (v2 table configuration).',
  'configuration.custom_name': 'GraphQL name used instead of the table or function name.',
  'configuration.identifier': 'Identifier of the table in the GraphQL schema (v2, BigQuery and others).',
  custom_root_fields: 'Custom names (and comments) of the root fields this object adds to the GraphQL schema.',
  'custom_root_fields.*': 'This root field: a custom name, or {name, comment}.',
  'custom_root_fields.*.name': 'GraphQL name of this root field.',
  'custom_root_fields.*.comment': 'Description of this root field in the GraphQL schema.',
  custom_column_names: 'GraphQL names of columns, by column name (v2; prefer column_config).',
  column_config: 'Per column: its GraphQL name and comment.',
  'column_config.custom_name': 'GraphQL name of the column.',
  'column_config.comment': 'Description of the column in the GraphQL schema.',
  'TrackedTable:spec.configuration.comment': 'Description of the table in the GraphQL schema.',
  is_enum: 'Expose the table as a GraphQL enum (v2 enum table: one text primary key column, an optional comment column).',
  object_relationships: 'Relationships to one row of another table (v2 object relationships).',
  array_relationships: 'Relationships to many rows of another table (v2 array relationships).',
  'object_relationships.name': 'Name of the relationship (a GraphQL field of the table).',
  'object_relationships.comment': 'Description of the relationship field in the GraphQL schema.',
  'array_relationships.name': 'Name of the relationship (a GraphQL field of the table).',
  'array_relationships.comment': 'Description of the relationship field in the GraphQL schema.',
  using: 'How the related rows are found: a foreign key or a manual column mapping.',
  foreign_key_constraint_on:
    'The foreign key: its column(s) on this table (object relationship), or {table, column(s)} of the other table pointing here (array relationship).',
  'foreign_key_constraint_on.table': 'The table whose foreign key points to this one (array relationship).',
  'foreign_key_constraint_on.columns': 'The columns of the foreign key.',
  'foreign_key_constraint_on.column': 'The column of the foreign key.',
  manual_configuration: 'A relationship without a foreign key: the other table and a column mapping.',
  remote_table: 'The other table of a manual relationship.',
  'remote_table.name': 'Name of the other table.',
  'remote_table.schema': 'Schema of the other table.',
  'remote_table.dataset': 'Dataset of the other table (BigQuery).',
  column_mapping: 'Columns of this table mapped to columns of the other table.',
  insertion_order: 'before_parent or after_parent: which row a nested insert writes first.',
  'TrackedTable:spec.computed_fields': 'Fields computed by a SQL function that takes the row (v2 computed fields).',
  'computed_fields.name': 'Name of the computed field (a GraphQL field of the table).',
  'computed_fields.definition': 'The function and how its arguments are passed.',
  'computed_fields.definition.function': 'The SQL function that computes the field.',
  table_argument: 'Name of the function argument that receives the row (default: the first).',
  session_argument: 'Name of the function argument that receives the session variables (json).',
  argument_mapping: 'Function arguments mapped to columns of the table (BigQuery).',
  return_table: 'The table the function returns rows of (BigQuery).',
  'computed_fields.comment': 'Description of the computed field in the GraphQL schema.',
  remote_relationships: 'Relationships to a remote schema or to a table of another source (v2 remote relationships).',
  'remote_relationships.name': 'Name of the remote relationship (a GraphQL field of the table).',
  'remote_relationships.definition':
    'v2 definition: to_remote_schema {remote_schema, lhs_fields, remote_field} or to_source {source, table, relationship_type, field_mapping}.',

  // Permission.
  'Permission:spec.role': 'The role this permission is for (not admin).',
  'Permission:spec.operation': 'select, insert, update or delete.',
  'Permission:spec.permission': 'The v2 permission of that operation (only the keys the operation has).',
  'permission.check': 'Boolean expression a row must satisfy after an insert or update (v2 check).',
  'permission.set': 'Column presets: column values set from session variables or constants.',
  'permission.columns': 'The columns the role may select, insert or update, or "*" for all.',
  'permission.backend_only': 'Only for requests with x-engine-use-backend-only-permissions (and an admin secret).',
  'permission.validate_input': 'A webhook that validates the input of an insert, update or delete (v2 input validation).',
  'permission.filter': 'Boolean expression the rows must satisfy (select, update, delete).',
  'permission.limit': 'Most rows one select returns for this role.',
  'permission.allow_aggregations': 'Whether the role may use the aggregate root fields.',
  'permission.computed_fields': 'The computed fields the role may select.',
  'permission.query_root_fields': 'Which query root fields the role gets (select, select_by_pk, select_aggregate); all when absent.',
  'permission.subscription_root_fields':
    'Which subscription root fields the role gets (select, select_by_pk, select_aggregate, select_stream); all when absent.',

  // RemoteSchema.
  'RemoteSchema:spec.definition': 'Where the remote GraphQL server is and how it is called (v2 remote schema definition).',
  url: 'URL of the server.',
  url_from_env: 'Name of an environment variable of the engine that holds the URL.',
  headers: 'Headers sent with each request.',
  'headers.name': 'Name of the header.',
  'headers.value': 'Value of the header.',
  'headers.value_from_env': "Name of an environment variable of the engine that holds the header's value.",
  forward_client_headers: "Forward the client's request headers to the server.",
  timeout_seconds: 'Seconds to wait for the server (default 60).',
  'definition.customization': 'Namespace and renaming of the remote GraphQL names (v2 remote schema customization).',
  root_fields_namespace: 'Put every root field of the remote under one field of this name.',
  'definition.customization.type_names': 'Prefix, suffix and mapping of the remote type names.',
  field_names: 'Per parent type: prefix, suffix and mapping of the remote field names.',

  // EventTrigger and CronTrigger.
  webhook: 'URL the event is sent to (may use {{ENV_VAR}} templates).',
  webhook_from_env: 'Name of an environment variable of the engine that holds the webhook URL.',
  'EventTrigger:spec.insert': 'Fire on insert: {columns: "*"}.',
  'EventTrigger:spec.update': 'Fire on update of these columns: {columns: [...] or "*"}.',
  'EventTrigger:spec.delete': 'Fire on delete: {columns: "*"}.',
  enable_manual: 'Allow invoking the trigger by hand (console, invoke_event_trigger).',
  retry_conf: 'How delivery is retried.',
  num_retries: 'Retries after the first attempt (default 0).',
  interval_sec: 'Seconds between attempts (event triggers; default 10).',
  timeout_sec: 'Seconds to wait for the webhook (default 60).',
  retry_interval_seconds: 'Seconds between attempts (cron triggers; default 10).',
  tolerance_seconds: 'How late (seconds) a scheduled event may still be delivered (default 21600).',
  request_transform: 'Rewrite of the request sent to the webhook or handler (v2 request transformation: method, url, body, query params, headers).',
  response_transform: "Rewrite of the webhook's or handler's response (v2 response transformation).",
  payload: 'JSON payload of each scheduled event.',
  include_in_metadata: 'Keep the cron trigger in exported metadata (true: the operator manages it).',

  // Function.
  'Function:spec.function': 'The SQL function: a name or {schema, name}.',
  'Function:spec.configuration': 'How the function is exposed (v2 function configuration).',
  'custom_root_fields.function': 'The function root field: a custom name, or {name, comment}.',
  'custom_root_fields.function_aggregate': 'The aggregate root field of the function: a custom name, or {name, comment}.',
  exposed_as: 'query or mutation (a VOLATILE function defaults to mutation).',
  'Function:spec.permissions.role': 'A role that may call the function.',

  // Action.
  'Action:spec.definition': 'The action: its kind, handler, arguments and output type (v2 action definition).',
  output_type: 'GraphQL type the action returns (a custom object type, possibly [T] or T!).',
  'Action:spec.definition.type': 'query or mutation.',
  'Action:spec.definition.kind': 'synchronous (default) or asynchronous (a mutation answered with an action id; the result is fetched later).',
  arguments: 'The arguments of the action field.',
  'arguments.name': 'Name of the argument.',
  'arguments.type': 'GraphQL type of the argument (a scalar, enum or input object; ! and [] allowed).',
  'arguments.description': 'Description of the argument in the GraphQL schema.',
  'Action:spec.permissions.role': 'A role that may call the action.',
  'Action:spec.permissions.comment': 'A comment kept with the permission.',

  // CustomTypes.
  scalars: 'Custom scalar types.',
  enums: 'Custom enum types.',
  input_objects: 'Custom input object types (action arguments).',
  objects: 'Custom object types (action outputs).',
  'CustomTypes:spec.*.name': 'Name of the GraphQL type.',
  'CustomTypes:spec.*.description': 'Description of the type in the GraphQL schema.',
  values: 'The values of the enum.',
  'values.value': 'The enum value.',
  'values.description': 'Description of the value.',
  is_deprecated: 'Mark the value deprecated.',
  fields: 'The fields of the type.',
  'fields.name': 'Name of the field.',
  'fields.type': 'GraphQL type of the field.',
  'fields.description': 'Description of the field.',
  'objects.relationships': "Relationships from the action's output object to a table (v2 action relationships).",
  'objects.relationships.name': 'Name of the relationship field.',
  'objects.relationships.type': 'object or array.',
  'objects.relationships.source': 'The source of the related table (default `default`).',
  field_mapping: 'Fields of this object mapped to columns of the related table.',

  // QueryCollection and RestEndpoint.
  'queries.name': 'Name of the query within the collection.',
  'queries.query': 'The GraphQL document.',
  'scope.global': 'true: the queries are allowed for every role; false: only for the roles listed.',
  'scope.roles': 'The roles the queries are allowed for (global: false).',
  methods: 'HTTP methods of the endpoint (GET, POST, PUT, PATCH, DELETE).',
  'RestEndpoint:spec.definition': 'What the endpoint runs: a query of a query collection.',
  'definition.query': 'The query the endpoint runs.',
  collection_name: 'Name of the query collection.',
  query_name: 'Name of the query in that collection.',

  // Engine.
  'serviceRef.name': 'Name of the Service in this namespace.',
  'serviceRef.port': 'Port of the Service (default 8080).',
  'serviceRef.scheme': 'http (default) or https.',
  'deployment.replicas': 'Number of engine pods (default 1).',
  'databaseUrlSecretRef.name': 'Name of the Secret in this namespace.',
  'databaseUrlSecretRef.key': 'Key of the database URL in that Secret (default database-url).',
  'resources.requests': 'Resources the engine container requests (cpu, memory).',
  'resources.limits': 'Resource limits of the engine container (cpu, memory).',
  'deployment.port': 'HTTP port of the engine (default 8080).',
  'env.name': 'Name of the environment variable.',
  'env.value': 'Its value.',
  'env.valueFrom': 'Its value from a Secret or ConfigMap key.',
  secretKeyRef: 'A key of a Secret in this namespace.',
  configMapKeyRef: 'A key of a ConfigMap in this namespace.',
  'secretKeyRef.name': 'Name of the Secret.',
  'secretKeyRef.key': 'The key in the Secret.',
  'configMapKeyRef.name': 'Name of the ConfigMap.',
  'configMapKeyRef.key': 'The key in the ConfigMap.',
  optional: 'Do not fail when the Secret or ConfigMap or key does not exist.',
  'adminSecretRef.name': 'Name of the Secret in this namespace.',
  'adminSecretRef.key': 'Key of the admin secret in that Secret (default admin-secret).',
  'Engine:status.metadataResourceVersion': "The engine's metadata resource_version after the last reconcile.",
  'Engine:status.managedObjects': 'Keys of the metadata objects this Engine applied and manages (what it prunes when no resource declares them any more).',
  'Engine:status.resources': 'Number of resources bound to this Engine.',
  'Engine:status.inconsistentObjects': 'Number of inconsistent objects among those this Engine manages.',
  'status.deployment.replicas': 'Pods of the Deployment.',
  'status.deployment.updatedReplicas': 'Pods running the latest spec.',
  'status.deployment.readyReplicas': 'Pods ready.',
  'status.deployment.availableReplicas': 'Pods available.',
};

interface Entry {
  readonly kind: string | null;
  /** The key names the whole path from the object's root, not just its end. */
  readonly anchored: boolean;
  readonly segments: readonly string[];
  readonly text: string;
}

const ENTRIES: readonly Entry[] = Object.entries(FIELD_DOCS).map(([key, text]) => {
  const colon = key.indexOf(':');
  const rest = key.slice(colon + 1);
  const anchored = rest.startsWith('^');
  return { kind: colon < 0 ? null : key.slice(0, colon), anchored, segments: (anchored ? rest.slice(1) : rest).split('.'), text };
});

/** The description of the field at `path` (names from the object's root) of `kind`, or undefined. */
export function fieldDescription(kind: string, path: readonly string[]): string | undefined {
  let best: { score: number; text: string } | undefined;
  for (const e of ENTRIES) {
    if (e.kind !== null && e.kind !== kind) continue;
    if (e.segments.length > path.length || (e.anchored && e.segments.length !== path.length)) continue;
    const tail = path.slice(path.length - e.segments.length);
    if (!e.segments.every((s, i) => s === '*' || s === tail[i])) continue;
    // More names matched first, then longer keys, then a kind's own key over a shared one.
    const score = e.segments.filter((s) => s !== '*').length * 4 + e.segments.length + (e.kind === null ? 0 : 2);
    if (best === undefined || score > best.score) best = { score, text: e.text };
  }
  return best?.text;
}

/** Calls `visit` on every field below `s` (array items and map values take their field's name). */
export function walkFields(s: OpenApiSchema, visit: (path: readonly string[], node: OpenApiSchema) => void, path: readonly string[] = []): void {
  const props = s['properties'] as Record<string, OpenApiSchema> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) {
    const p = [...path, k];
    visit(p, v);
    walkFields(v, visit, p);
    if (typeof v['items'] === 'object' && v['items'] !== null) walkFields(v['items'] as OpenApiSchema, visit, p);
    if (typeof v['additionalProperties'] === 'object' && v['additionalProperties'] !== null) walkFields(v['additionalProperties'] as OpenApiSchema, visit, p);
  }
}

/** A copy of `s` (a kind's openAPIV3Schema) with a description on every field that has none (but the root's metadata). */
export function describeFields(kind: string, s: OpenApiSchema, path: readonly string[] = []): OpenApiSchema {
  const out: OpenApiSchema = { ...s };
  const props = s['properties'] as Record<string, OpenApiSchema> | undefined;
  if (props !== undefined) {
    out['properties'] = Object.fromEntries(
      Object.entries(props).map(([k, v]) => {
        const p = [...path, k];
        const node = describeFields(kind, v, p);
        // The apiserver documents metadata itself and refuses anything but name/generateName in it.
        const text = typeof v['description'] === 'string' ? v['description'] : p.join('.') === 'metadata' ? undefined : fieldDescription(kind, p);
        return [k, text === undefined ? node : { ...node, description: text }];
      }),
    );
  }
  if (typeof s['items'] === 'object' && s['items'] !== null) out['items'] = describeFields(kind, s['items'] as OpenApiSchema, path);
  if (typeof s['additionalProperties'] === 'object' && s['additionalProperties'] !== null) {
    out['additionalProperties'] = describeFields(kind, s['additionalProperties'] as OpenApiSchema, path);
  }
  return out;
}

function typeOf(node: OpenApiSchema): string {
  const t = typeof node['type'] === 'string' ? (node['type'] as string) : 'any';
  if (t === 'array') {
    const items = node['items'] as OpenApiSchema | undefined;
    return `[]${items === undefined ? 'any' : typeOf(items)}`;
  }
  if (t === 'object' && typeof node['additionalProperties'] === 'object') return `map[string]${typeOf(node['additionalProperties'] as OpenApiSchema)}`;
  return t;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The field reference of every kind (crds/fields.md), from the described CRD schemas. */
export function fieldReference(kinds: readonly { readonly kind: string; readonly schema: OpenApiSchema }[]): string {
  const lines = [
    '# Field reference',
    '',
    '<!-- Generated by controller/generate-crds.ts from controller/api/v1alpha1 (field-docs.ts); do not edit. -->',
    '',
    'Every field of every kind of `graphql.engine.dev/v1alpha1`, as `kubectl explain` shows it.',
    'Spec fields named in snake_case are the fields of the v2 metadata object of the same name.',
    '',
  ];
  for (const k of kinds) {
    lines.push(`## ${k.kind}`, '', '| field | type | description |', '| --- | --- | --- |');
    walkFields(k.schema, (path, node) => {
      if (path[0] === 'apiVersion' || path[0] === 'kind' || path[0] === 'metadata') return;
      lines.push(`| \`${path.join('.')}\` | ${typeOf(node)} | ${cell(String(node['description'] ?? ''))} |`);
    });
    lines.push('');
  }
  return lines.join('\n');
}
