/**
 * Monaco's web workers, from this console's own assets (Note [Console build
 * layout] in build.ts): relative to the page, so a path prefix is kept.
 */
const files = __CONSOLE_WORKERS__;

(globalThis as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = {
  getWorker(_id: string, label: string): Worker {
    const file = label === 'json' ? files.json : label === 'graphql' ? files.graphql : files.editor;
    return new Worker(new URL(`assets/${file}`, document.baseURI), { name: label });
  },
};
