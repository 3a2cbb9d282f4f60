import { defineConfig } from 'vitest/config';

/**
 * Note [Test projects]: three projects, so the fast loop stays fast.
 * - `unit`: no database, no processes (test/unit/**, the golden SQL cases); `npm run test:unit`
 *   starts no PostgreSQL, because only the projects that need it name the global setup.
 * - `integration`: a real PostgreSQL (test/support/global-setup.ts) and real engines over HTTP
 *   (test/integration/**, the golden responses, test/k8s/** which skips itself without a cluster).
 * - `scale`: the few tests that build thousands of objects (test/scale/**, and the opt-in
 *   1,000-resource operator test), each with its own generous timeout: on two shared cores their
 *   time varies several-fold, and a 30 s default made them fail for load, not for a bug.
 * `npm test` runs all three. When integration and scale run together they share one PostgreSQL
 * (the global setup is reference-counted).
 */
const pgSetup = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    exclude: ['test/bench/**', 'node_modules/**'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel workers, each on its own database of one shared server.
    pool: 'forks',
    maxWorkers: 2,
    // vite resolves the engine's `graphql` to index.mjs while Node loads it as CJS for external packages:
    // @graphql-tools/* must go through vite too, or their types come from "another realm" (engine/remote/).
    server: { deps: { inline: [/@graphql-tools\//] } },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/golden/golden.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/golden/responses.test.ts', 'test/k8s/**/*.test.ts'],
          exclude: ['test/k8s/scale.test.ts'],
          globalSetup: pgSetup,
        },
      },
      {
        extends: true,
        test: {
          name: 'scale',
          include: ['test/scale/**/*.test.ts', 'test/k8s/scale.test.ts'],
          globalSetup: pgSetup,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
