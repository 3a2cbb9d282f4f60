/** Heap helpers of the in-process memory benches (roles-scale.ts, schema-memory.ts). */

/** Two full collections when the process runs with --expose-gc (the second frees what the first finalized); nothing otherwise. */
export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g !== undefined) {
    g();
    g();
  }
}

/** Bytes as MiB with one decimal. */
export const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;
