/**
 * The BigQuery client and Google's auth library, loaded on first use: an engine without a
 * BigQuery source never loads them (Note [Drivers load on first use] in ../mssql/driver.ts;
 * importing `@google-cloud/bigquery` alone costs ~100 ms and tens of MiB).
 */
import { createRequire } from 'node:module';
import type * as BigQueryClient from '@google-cloud/bigquery';
import type * as GoogleAuth from 'google-auth-library';

const require = createRequire(import.meta.url);
let client: typeof BigQueryClient | undefined;
let auth: typeof GoogleAuth | undefined;

/** The `@google-cloud/bigquery` module. */
export function bigqueryClient(): typeof BigQueryClient {
  return (client ??= require('@google-cloud/bigquery') as typeof BigQueryClient);
}

/** The `google-auth-library` module. */
export function googleAuth(): typeof GoogleAuth {
  return (auth ??= require('google-auth-library') as typeof GoogleAuth);
}
