/** Hashed file names of the Monaco workers, set by build.ts through esbuild's `define`. */
declare const __CONSOLE_WORKERS__: { readonly editor: string; readonly json: string; readonly graphql: string };

declare module '*.css';
