/**
 * The `Permission` kind: one role's permission for one operation on one table — an entry of
 * `<operation>_permissions` of a table in the metadata document.
 *
 * The four permission bodies differ; the CRD holds their union and CEL rules, generated from the
 * engine's own body schemas, refuse keys that the chosen operation does not have.
 */
import {
  deletePermissionSchema,
  insertPermissionSchema,
  selectPermissionSchema,
  tableNameSchema,
  updatePermissionSchema,
} from '../../../engine/model/schemas/common.ts';
import type { JsonObject, TableNameInput } from '../../../engine/model/document.ts';
import {
  STANDARD_PRINTER_COLUMNS,
  deletionPolicySchema,
  engineRefSchema,
  type CelRule,
  type CustomObject,
  type KindDefinition,
  type TargetFields,
} from './common.ts';
import { toStructural, type JsonSchemaNode, type OpenApiSchema } from './structural.ts';

/** The operation a permission governs. */
export type PermissionOperation = 'select' | 'insert' | 'update' | 'delete';

/** All operations, in the order the document lists their permission lists. */
export const PERMISSION_OPERATIONS: readonly PermissionOperation[] = ['insert', 'select', 'update', 'delete'];

/** `Permission.spec`. */
export interface PermissionSpec extends TargetFields {
  /** Defaults to `default`. */
  readonly source?: string;
  readonly table: TableNameInput;
  readonly role: string;
  readonly operation: PermissionOperation;
  /** The permission body of the operation (select: columns, filter, limit...). */
  readonly permission: JsonObject;
  readonly comment?: string;
}

/** A Permission object. */
export type Permission = CustomObject<PermissionSpec>;

const BODY_SCHEMAS: Readonly<Record<PermissionOperation, JsonSchemaNode>> = {
  select: selectPermissionSchema,
  insert: insertPermissionSchema,
  update: updatePermissionSchema,
  delete: deletePermissionSchema,
};

function bodyKeys(op: PermissionOperation): string[] {
  return Object.keys((BODY_SCHEMAS[op]['properties'] as Record<string, unknown> | undefined) ?? {});
}

function requiredKeys(op: PermissionOperation): string[] {
  return (BODY_SCHEMAS[op]['required'] as string[] | undefined) ?? [];
}

/**
 * The CEL rules that tie the body keys to the operation (exported for the unit tests). Keys whose
 * CRD schema is free-form (`columns`: "*" or a list) are invisible to CEL, so they get no rule;
 * the controller checks them with the engine's schema and reports InvalidSpec.
 */
export function permissionRules(): CelRule[] {
  const rules: CelRule[] = [];
  const union = unionBodySchema()['properties'] as Record<string, OpenApiSchema>;
  const typed = (key: string): boolean => typeof union[key]?.['type'] === 'string';
  const allKeys = [...new Set(PERMISSION_OPERATIONS.flatMap(bodyKeys))].filter(typed).sort();
  for (const key of allKeys) {
    const ops = PERMISSION_OPERATIONS.filter((op) => bodyKeys(op).includes(key));
    if (ops.length === PERMISSION_OPERATIONS.length) continue;
    rules.push({
      rule: `!has(self.permission.${key}) || self.operation in [${ops.map((o) => `'${o}'`).join(', ')}]`,
      message: `permission.${key} is allowed only for operation ${ops.join(', ')}`,
    });
  }
  for (const op of PERMISSION_OPERATIONS) {
    for (const key of requiredKeys(op).filter(typed)) {
      rules.push({
        rule: `self.operation != '${op}' || has(self.permission.${key})`,
        message: `${op === 'insert' || op === 'update' ? 'an' : 'a'} ${op} permission needs permission.${key}`,
      });
    }
  }
  return rules;
}

function unionBodySchema(): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  for (const op of PERMISSION_OPERATIONS) {
    const s = toStructural(BODY_SCHEMAS[op]);
    Object.assign(properties, s['properties'] as Record<string, OpenApiSchema>);
  }
  return { type: 'object', properties, description: 'The permission body of the operation, as in the metadata document.' };
}

/** The CRD description of Permission. */
export const permissionKind: KindDefinition = {
  kind: 'Permission',
  plural: 'permissions',
  singular: 'permission',
  shortNames: ['gperm'],
  specSchema: {
    type: 'object',
    required: ['table', 'role', 'operation', 'permission'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      source: { type: 'string', minLength: 1, maxLength: 253, default: 'default' },
      table: toStructural(tableNameSchema),
      role: { type: 'string', minLength: 1, maxLength: 253 },
      operation: { type: 'string', enum: [...PERMISSION_OPERATIONS] },
      permission: unionBodySchema(),
      comment: { type: 'string', maxLength: 4096 },
    },
    'x-kubernetes-validations': [...permissionRules(), { rule: "self.role != 'admin'", message: 'the admin role always has every permission' }],
  },
  printerColumns: [
    { name: 'Role', type: 'string', jsonPath: '.spec.role' },
    { name: 'Operation', type: 'string', jsonPath: '.spec.operation' },
    ...STANDARD_PRINTER_COLUMNS,
  ],
};
