/**
 * Arg schemas and lookups shared by the permission operations
 * (`pg_create_<kind>_permission`, `pg_drop_<kind>_permission`,
 * `pg_set_permission_comment` and their legacy `/v1/query` names).
 */
import type { PermissionKind } from '../../../catalog/object-id.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { TableMetadata } from '../../../model/document.ts';
import { permissionListKey } from '../../edit.ts';
import { argPath, type MetadataCall, type OnSource } from '../../operation.ts';
import {
  deletePermissionSchema,
  insertPermissionSchema,
  nameSchema,
  nullableString,
  selectPermissionSchema,
  tableNameSchema,
  updatePermissionSchema,
} from '../../../model/schemas/common.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';

/** Permission kinds in the order v2 lists them. */
export const PERMISSION_KINDS: readonly PermissionKind[] = ['insert', 'select', 'update', 'delete'];

const BODY: Readonly<Record<PermissionKind, JsonSchema>> = {
  select: selectPermissionSchema,
  insert: insertPermissionSchema,
  update: updatePermissionSchema,
  delete: deletePermissionSchema,
};

function args(required: readonly string[], properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', required: [...required], properties, additionalProperties: false };
}

/** `pg_create_<kind>_permission`: `table, role, permission` required; `comment, source`. */
export function createPermissionArgs(kind: PermissionKind): JsonSchema {
  return args(['table', 'role', 'permission'], {
    table: tableNameSchema,
    role: nameSchema,
    permission: BODY[kind],
    comment: nullableString,
    source: nameSchema,
  });
}

/** `pg_drop_<kind>_permission`: `table, role`; `source`. */
export const dropPermissionArgs = args(['table', 'role'], { table: tableNameSchema, role: nameSchema, source: nameSchema });

/** `pg_set_permission_comment`: `table, role, type`; `comment, source`. */
export const setPermissionCommentArgs = args(['table', 'role', 'type'], {
  table: tableNameSchema,
  role: nameSchema,
  type: { enum: [...PERMISSION_KINDS] },
  comment: nullableString,
  source: nameSchema,
});

/** Whether `role` has a `kind` permission on `entry`. */
export function hasPermission(entry: TableMetadata, kind: PermissionKind, role: string): boolean {
  return (entry[permissionListKey(kind)] as ReadonlyArray<{ role: string }>).some((p) => p.role === role);
}

/** `not-exists` at `$.args.role` unless `role` has a `kind` permission on `entry`. */
export function requirePermission(entry: TableMetadata, kind: PermissionKind, role: string, call: MetadataCall, on: OnSource): void {
  if (hasPermission(entry, kind, role)) return;
  throw new EngineError(ErrorCode.NotExists, `${kind} permission for role "${role}" does not exist on table "${on.naming.format(entry.table)}"`, {
    path: argPath(call, 'role'),
  });
}
