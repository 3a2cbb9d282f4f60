/**
 * The `InheritedRole` kind: a role that inherits the permissions of a set of roles
 * (`inherited_roles[]` of the metadata document).
 */
import { STANDARD_PRINTER_COLUMNS, deletionPolicySchema, engineRefSchema, type CustomObject, type KindDefinition, type TargetFields } from './common.ts';

/** `InheritedRole.spec`. */
export interface InheritedRoleSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly role_name?: string;
  readonly role_set: readonly string[];
}

/** An InheritedRole object. */
export type InheritedRoleResource = CustomObject<InheritedRoleSpec>;

/** The CRD description of InheritedRole. */
export const inheritedRoleKind: KindDefinition = {
  kind: 'InheritedRole',
  plural: 'inheritedroles',
  singular: 'inheritedrole',
  shortNames: ['grole'],
  specSchema: {
    type: 'object',
    required: ['role_set'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      role_name: { type: 'string', minLength: 1, maxLength: 253, description: 'Name of the inherited role; defaults to metadata.name.' },
      role_set: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'string', minLength: 1, maxLength: 253 },
        'x-kubernetes-list-type': 'set',
        description: 'The roles whose permissions this role inherits.',
      },
    },
    'x-kubernetes-validations': [{ rule: "!self.role_set.exists(r, r == 'admin')", message: 'the admin role cannot be inherited' }],
  },
  // role_name defaults to metadata.name, which only a rule on the whole object can read.
  objectRules: [{ rule: "(has(self.spec.role_name) ? self.spec.role_name : self.metadata.name) != 'admin'", message: 'admin cannot be an inherited role' }],
  printerColumns: [{ name: 'Roles', type: 'string', jsonPath: '.spec.role_set' }, ...STANDARD_PRINTER_COLUMNS],
};
