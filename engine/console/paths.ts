/** Where the console's sources and its build output live (both next to this file). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CONSOLE_SRC = path.join(here, 'src');
export const CONSOLE_DIST = path.join(here, 'dist');
