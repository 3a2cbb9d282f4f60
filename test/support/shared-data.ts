/**
 * Where the shared sample data lives: `../shared/data/` beside the checkout.
 * Tests read it in place (never copied into the repo) and skip when absent.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `<checkout>/../shared/data/chinook`. */
export const CHINOOK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'data', 'chinook');
