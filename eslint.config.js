// ESLint: typescript-eslint (type-aware) plus the layering rules of
// docs/architecture.md, enforced with import-x.
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

// Dialect folders: only backends/ itself reaches them, through backends/registry.ts (Note [Backend seam]).
const DIALECTS = ['postgres', 'mssql', 'bigquery'];
const outsideBackends = readdirSync('./engine')
  .filter((name) => name !== 'backends')
  .map((name) => `./engine/${name}`);
const dialectZones = DIALECTS.flatMap((d) => [
  { target: outsideBackends, from: `./engine/backends/${d}`, message: `only engine/backends/registry.ts imports backends/${d}/; ask backendFor(kind)` },
  {
    target: ['./engine/backends/sql', './engine/backends/backend.ts', './engine/backends/introspection.ts', './engine/backends/source-preparer.ts'],
    from: `./engine/backends/${d}`,
    message: `only engine/backends/registry.ts imports backends/${d}/; ask backendFor(kind)`,
  },
]);

// The folders above the catalog's loop, each imported only by the named entries of engine/ (the
// folder-level import graph stays acyclic above the catalog; docs/architecture.md, "Layering").
const engineEntries = readdirSync('./engine');
const onlyImportedBy = (folder, importers) => ({
  target: engineEntries.filter((name) => name !== folder && !importers.includes(name)).map((name) => `./engine/${name}`),
  from: `./engine/${folder}`,
  message: `only ${importers.join(', ')} import ${folder}/; pass a function in or move the shared type down`,
});

const zones = [
  // ir/ imports only errors/.
  { target: './engine/ir', from: './engine', except: ['./ir', './errors'], message: 'ir/ imports only errors/' },
  // backends/ never imports graphql/, server/ or metadata operations.
  { target: './engine/backends', from: './engine/graphql', message: 'backends/ must not import graphql/' },
  // The catalog and the capabilities it resolves sit below graphql/ (their root fields live in graphql/schema/).
  {
    target: ['./engine/catalog', './engine/actions', './engine/remote', './engine/events'],
    from: './engine/graphql',
    message: 'catalog/, actions/, remote/ and events/ sit below graphql/; put GraphQL-side code in graphql/',
  },
  { target: './engine/backends', from: './engine/server', message: 'backends/ must not import server/' },
  { target: './engine/subscriptions', from: './engine/server', message: 'subscriptions/ is called by server/ws/ through api/contract.ts, never the reverse' },
  { target: './engine/backends', from: './engine/metadata/operations', message: 'backends/ must not import metadata operations' },
  // The API contract lives in api/; the engines behind it never import the HTTP layer.
  { target: ['./engine/metadata', './engine/execute', './engine/api'], from: './engine/server', message: 'import the API contract from api/contract.ts, not server/' },
  // observability/ (metrics, traces) stands alone: every layer may report to it without a cycle.
  { target: './engine/observability', from: './engine', except: ['./observability'], message: 'observability/ imports nothing of the engine' },
  // graphql/ never imports execute/ or a dialect folder.
  { target: './engine/graphql', from: './engine/execute', message: 'graphql/ must not import execute/' },
  // No folder but backends/ imports a dialect folder.
  ...dialectZones,
  // execute/ never sees the naming convention: graphql/role-operation.ts translates (Note [Request steps]).
  {
    target: './engine/execute',
    from: './engine/graphql/schema/naming-convention.ts',
    message: 'execute/ must not import naming-convention.ts; go through graphql/role-operation.ts',
  },
  // model/ (the wire document and its schemas) is the bottom layer: it imports only errors/, so the
  // controller, metadata-client/ and the CLI can load it alone.
  { target: './engine/model', from: './engine', except: ['./model', './errors'], message: 'model/ imports only errors/' },
  // errors/ is below everything.
  { target: './engine/errors', from: './engine', except: ['./errors'], message: 'errors/ imports nothing of the engine' },
  // metadata-client/ is a client of the engine over HTTP: it shares only the document model.
  { target: './engine/metadata-client', from: './engine', except: ['./metadata-client', './model'], message: 'metadata-client/ imports only model/' },
  // metadata/ (the operations) is the top: a port it calls lives by its implementation (events/scheduled/scheduled-events-api.ts).
  onlyImportedBy('metadata', ['boot.ts']),
  // rest/ and execute/ sit above the catalog, graphql/ and the capabilities they run.
  onlyImportedBy('rest', ['boot.ts']),
  onlyImportedBy('execute', ['boot.ts', 'rest', 'subscriptions']),
  // controller/ talks to the engine over HTTP; it may share only the document model and the client.
  {
    target: './controller',
    from: './engine',
    except: ['./model', './metadata-client'],
    message: 'controller/ imports only engine/model/ and engine/metadata-client/',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'test/bench/results/**', 'coverage/**', 'engine/console/dist/**', 'test/artifacts/**', 'dist/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    // import-x reads only the files whose extension it is told (default: .js), so without
    // `import-x/extensions` no-cycle followed no .ts import and checked nothing. Imports spell
    // `.ts` and tsconfig has no `paths`, so the plugin's own resolver finds every file
    // (no eslint-import-resolver-typescript); the files are parsed with typescript-eslint's parser.
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.cjs', '.mjs'],
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json'] })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones }],
    },
  },
  {
    // Only server/ imports fastify (type-only imports elsewhere are fine).
    files: ['engine/**/*.ts'],
    ignores: ['engine/server/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'fastify', message: 'only engine/server/ imports fastify', allowTypeImports: true }] },
      ],
    },
  },
  {
    // Only cli/ reads the environment (dev-start is the `npm start` entry that sets up its own).
    files: ['engine/**/*.ts'],
    ignores: ['engine/cli/**', 'engine/dev-start.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'only engine/cli/ reads process.env' }],
    },
  },
);
