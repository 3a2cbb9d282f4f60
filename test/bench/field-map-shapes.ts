/**
 * The heap an input object type keeps with its fields made by a checkout's
 * lean-types.ts, for N types of 7 fields whose names are each type's own
 * (`unique`: tables whose columns differ) or the same for all (`shared`:
 * the scale bench's tables): Note [Configurations in dictionaries] in
 * engine/graphql/schema/lean-types.ts (field maps of column-keyed
 * configurations in fast mode).
 *
 * Run: node --expose-gc test/bench/field-map-shapes.ts <checkout> unique|shared [types=4000]
 * (a checkout: this one, `.`, or a `git worktree` of another commit; run each variant in its own process).
 */
import path from 'node:path';
import { GraphQLInt, GraphQLString, type GraphQLInputObjectType, type GraphQLInputFieldConfigMap } from 'graphql';

const [root = '.', mode = 'unique', countArg = '4000'] = process.argv.slice(2);
const N = Number(countArg);
const lean = (await import(path.resolve(root, 'engine/graphql/schema/lean-types.ts'))) as {
  generatedInputObjectType: (config: { name: string; fields: GraphQLInputFieldConfigMap }) => GraphQLInputObjectType;
};
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
gc();
gc();
const before = process.memoryUsage().heapUsed;
const keep: GraphQLInputObjectType[] = [];
for (let i = 0; i < N; i++) {
  const fields: GraphQLInputFieldConfigMap = {};
  for (let j = 0; j < 7; j++) fields[mode === 'unique' ? `t${i}_c${j}` : `c${j}`] = { type: j % 2 === 1 ? GraphQLInt : GraphQLString };
  const t = lean.generatedInputObjectType({ name: `t${i}_set_input`, fields });
  t.getFields();
  keep.push(t);
}
gc();
gc();
console.log(`${root} ${mode}: ${((process.memoryUsage().heapUsed - before) / keep.length).toFixed(0)} bytes per type`);
