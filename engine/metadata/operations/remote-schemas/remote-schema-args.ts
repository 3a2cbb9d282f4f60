/**
 * Argument schemas of the remote schema operations (v2 compat: spec "Remote
 * schemas and relationships"), and the lookup every one of them starts with.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { remoteSchemaEntries, type RemoteSchemaEntry } from '../../../remote/definition.ts';
import type { MetadataDocument } from '../../../model/document.ts';
import { argPath, type MetadataCall } from '../../operation.ts';
import { nameSchema } from '../../../model/schemas/common.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';

const headerSchema: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: nameSchema, value: { type: 'string' }, value_from_env: nameSchema },
  additionalProperties: false,
  oneOf: [{ required: ['value'] }, { required: ['value_from_env'] }],
};

const affixes: JsonSchema = {
  prefix: { type: 'string' },
  suffix: { type: 'string' },
  mapping: { type: 'object', additionalProperties: { type: 'string', pattern: '^[_A-Za-z][_0-9A-Za-z]*$' } },
};

/** `definition.customization`. */
const customizationSchema: JsonSchema = {
  type: 'object',
  properties: {
    root_fields_namespace: { type: 'string', pattern: '^[_A-Za-z][_0-9A-Za-z]*$' },
    type_names: { type: 'object', properties: affixes, additionalProperties: false },
    field_names: {
      type: 'array',
      items: { type: 'object', required: ['parent_type'], properties: { parent_type: nameSchema, ...affixes }, additionalProperties: false },
    },
  },
  additionalProperties: false,
};

/** A remote schema `definition`. */
export const remoteDefinitionSchema: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', minLength: 1 },
    url_from_env: nameSchema,
    headers: { type: 'array', items: headerSchema },
    forward_client_headers: { type: 'boolean' },
    timeout_seconds: { type: 'integer', minimum: 0 },
    customization: customizationSchema,
  },
  additionalProperties: false,
  oneOf: [{ required: ['url'] }, { required: ['url_from_env'] }],
};

/** `{name, definition, comment?}` of add/update_remote_schema. */
export const remoteSchemaArgs: JsonSchema = {
  type: 'object',
  required: ['name', 'definition'],
  properties: { name: nameSchema, definition: remoteDefinitionSchema, comment: { type: ['string', 'null'] } },
  additionalProperties: false,
};

/** `{name}`. */
export const remoteNameArgs: JsonSchema = { type: 'object', required: ['name'], properties: { name: nameSchema }, additionalProperties: false };

/** The remote schema `name` of `doc`; `not-exists` when there is none. */
export function requireRemoteSchema(doc: MetadataDocument, name: string, call: MetadataCall, key = 'name'): RemoteSchemaEntry {
  const found = remoteSchemaEntries(doc.remote_schemas).find((r) => r.name === name);
  if (found === undefined) throw new EngineError(ErrorCode.NotExists, `remote schema with name "${name}" does not exist`, { path: argPath(call, key) });
  return found;
}
