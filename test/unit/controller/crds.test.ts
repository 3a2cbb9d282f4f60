import { describe, expect, it } from 'vitest';
import { ALL_KINDS } from '../../../controller/api/v1alpha1/index.ts';
import { permissionRules } from '../../../controller/api/v1alpha1/permission.ts';
import { toStructural } from '../../../controller/api/v1alpha1/structural.ts';
import { crdFor, generatedFiles } from '../../../controller/generate-crds.ts';
import { fieldDescription, walkFields } from '../../../controller/api/v1alpha1/field-docs.ts';
import { readFileSync } from 'node:fs';

/** Every node of a structural schema has a type unless it is free-form (apiserver rule). */
function untypedPaths(s: Record<string, unknown>, path = '$'): string[] {
  if (s['x-kubernetes-preserve-unknown-fields'] === true && s['type'] === undefined) return [];
  // Quantities (resources): the one typed union structural schemas allow.
  if (s['x-kubernetes-int-or-string'] === true) return [];
  const out: string[] = [];
  if (typeof s['type'] !== 'string') out.push(path);
  for (const k of ['oneOf', 'anyOf', 'allOf', 'if', 'then', 'not', 'const']) if (k in s) out.push(`${path} has ${k}`);
  const props = s['properties'] as Record<string, Record<string, unknown>> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) out.push(...untypedPaths(v, `${path}.${k}`));
  if (typeof s['items'] === 'object') out.push(...untypedPaths(s['items'] as Record<string, unknown>, `${path}[]`));
  if (typeof s['additionalProperties'] === 'object') out.push(...untypedPaths(s['additionalProperties'] as Record<string, unknown>, `${path}{}`));
  return out;
}

describe('CRDs', () => {
  it('are structural for every kind', () => {
    for (const k of ALL_KINDS) {
      const crd = crdFor(k) as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
      const schema = crd.spec.versions[0]?.schema.openAPIV3Schema ?? {};
      expect(untypedPaths(schema), k.kind).toEqual([]);
    }
  });

  it('describe every field of every kind, and crds/fields.md lists each with that description (issue 36.7)', () => {
    let fields = 0;
    const reference = generatedFiles().get('fields.md') ?? '';
    for (const k of ALL_KINDS) {
      const crd = crdFor(k) as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
      const missing: string[] = [];
      const section = reference.slice(reference.indexOf(`## ${k.kind}\n`)).split('\n## ')[0] ?? '';
      walkFields(crd.spec.versions[0]?.schema.openAPIV3Schema ?? {}, (path, node) => {
        // Documented by the apiserver; a CRD may not describe it.
        if (path.join('.') === 'metadata') return;
        fields++;
        const d = node['description'];
        if (typeof d !== 'string' || d.trim() === '') missing.push(path.join('.'));
        else if (!['apiVersion', 'kind', 'metadata'].includes(path[0] ?? ''))
          expect(section, `${k.kind} ${path.join('.')}`).toContain(`| \`${path.join('.')}\` |`);
      });
      expect(missing, k.kind).toEqual([]);
    }
    expect(fields).toBeGreaterThan(500);
    // The most specific key wins: an engineRef's name is not a custom type's name.
    expect(fieldDescription('CustomTypes', ['spec', 'engineRef', 'name'])).toBe('Name of the Engine resource in this namespace.');
    expect(fieldDescription('CustomTypes', ['spec', 'scalars', 'name'])).toBe('Name of the GraphQL type.');
    expect(fieldDescription('Function', ['spec', 'configuration', 'custom_root_fields', 'function', 'name'])).toBe('GraphQL name of this root field.');
    expect(fieldDescription('TrackedTable', ['spec', 'computed_fields', 'definition', 'function', 'name'])).toBe('Name of the function.');
  });

  it('are up to date in crds/ (run npm run generate:crds)', () => {
    for (const [name, content] of generatedFiles()) expect(readFileSync(new URL(`../../../crds/${name}`, import.meta.url), 'utf8'), name).toBe(content);
  });

  it('map nullable, free-form and merged shapes of the engine schemas', () => {
    expect(toStructural({ type: ['integer', 'null'], minimum: 0 })).toEqual({ type: 'integer', nullable: true, minimum: 0 });
    // A union refuses the JSON types none of its branches admits (Note [Typed unions without types]).
    expect(
      toStructural({
        oneOf: [
          { type: 'string', minLength: 1 },
          { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        ],
      }),
    ).toEqual({
      'x-kubernetes-preserve-unknown-fields': true,
      minimum: 1,
      maximum: 0,
      minItems: 1,
      maxItems: 0,
      not: { enum: [true, false] },
      minLength: 1,
      required: ['name'],
      properties: { name: { type: 'string' } },
    });
    expect(toStructural({ oneOf: [{ enum: ['*'] }, { type: 'array', items: { type: 'string' } }] })).toMatchObject({
      pattern: '^(\\*)$',
      minProperties: 1,
      maxProperties: 0,
      items: { type: 'string' },
    });
    expect(toStructural({ enum: ['a', null] })).toEqual({ type: 'string', nullable: true, enum: ['a'] });
    expect(toStructural({ type: 'object' })).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });

  it('derive the Permission CEL rules from the engine body schemas', () => {
    const rules = permissionRules().map((r) => r.rule);
    expect(rules).toContain("!has(self.permission.limit) || self.operation in ['select']");
    expect(rules).toContain("!has(self.permission.check) || self.operation in ['insert', 'update']");
    expect(rules.some((r) => r.includes('columns'))).toBe(false);
  });
});
