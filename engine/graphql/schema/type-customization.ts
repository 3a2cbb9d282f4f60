/**
 * Source `type_names` customization applied to the generated type names of
 * a table (see catalog/stages/customization.ts): every name a
 * {@link TableTypeNames} or {@link MutationTypeNames} gives gets the
 * source's prefix and suffix.
 */
import type { SourceCustomizationInfo } from '../../catalog/types.ts';
import { customizeTypeName } from '../../catalog/stages/customization.ts';
import { mutationTypeNames, tableTypeNames, type MutationTypeNames, type TableTypeNames } from './names.ts';

/** `names` with every string, and every string a function of it returns, customized. */
function wrapNames<T extends object>(names: T, c: SourceCustomizationInfo | undefined): T {
  if (c === undefined || (c.typePrefix === '' && c.typeSuffix === '')) return names;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(names)) {
    if (typeof v === 'string') out[k] = customizeTypeName(c, v);
    else if (typeof v === 'function') out[k] = (...args: unknown[]): string => customizeTypeName(c, String((v as (...a: unknown[]) => unknown)(...args)));
    else out[k] = v;
  }
  return out as T;
}

/** The type names of a table of a source with customization `c`. */
export function sourceTableTypeNames(base: string, c: SourceCustomizationInfo | undefined): TableTypeNames {
  return wrapNames(tableTypeNames(base), c);
}

/** The mutation type names of a table of a source with customization `c`. */
export function sourceMutationTypeNames(base: string, c: SourceCustomizationInfo | undefined): MutationTypeNames {
  return wrapNames(mutationTypeNames(base), c);
}
