/**
 * A real T-SQL parser for tests of the MSSQL backend's SQL: sqlglot's `tsql`
 * dialect (PyPI, pinned; its `bigquery` dialect reads the BigQuery backend's
 * golden SQL the same way), in a Python venv this module makes itself under
 * ~/.cache/engine-tools/ on first use (CI runs on a clean clone). Without
 * python3 the callers skip with the reason this gives; a failed install fails.
 *
 * sqlglot parses leniently in places (an unknown function is just a call),
 * but an unbalanced parenthesis, a clause out of place or a statement it
 * cannot read at all is an error; a statement it falls back to reading as an
 * opaque `Command` counts as an error too.
 *
 * Constructs SQL Server accepts that sqlglot 30.30.0 cannot read are listed
 * in {@link PARSER_GAPS}, with the rewrite made before parsing (only there).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SQLGLOT_VERSION = '30.30.0';

/**
 * SQL Server syntax sqlglot's tsql dialect does not read, each with a
 * stand-in of the same shape that it does (applied only for the check).
 */
export const PARSER_GAPS: ReadonlyArray<{ readonly construct: string; readonly pattern: RegExp; readonly replacement: string }> = [
  {
    // MERGE's `WHEN NOT MATCHED THEN INSERT DEFAULT VALUES` (a row giving no column).
    construct: 'MERGE ... INSERT DEFAULT VALUES',
    pattern: /THEN INSERT DEFAULT VALUES/g,
    replacement: 'THEN INSERT ([__defaults]) VALUES (DEFAULT)',
  },
];

const SCRIPT = `
import json, sys, logging
logging.disable(logging.CRITICAL)
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel
out = []
dialect = sys.argv[1]
for text in json.load(sys.stdin):
    try:
        stmts = [s for s in sqlglot.parse(text, read=dialect, error_level=ErrorLevel.RAISE) if s is not None]
        bad = [s for s in stmts if any(isinstance(n, exp.Command) for n in s.walk())]
        if not stmts:
            out.append("no statement")
        elif bad:
            out.append("not understood (read as an opaque command): " + bad[0].sql()[:200])
        else:
            out.append(None)
    except Exception as e:
        out.append(str(e))
json.dump(out, sys.stdout)
`;

function cacheDir(): string {
  return path.join(homedir(), '.cache', 'engine-tools', `sqlglot-${SQLGLOT_VERSION}`);
}

async function works(python: string): Promise<boolean> {
  if (!existsSync(python)) return false;
  try {
    const { stdout } = await run(python, ['-c', 'import sqlglot; print(sqlglot.__version__)']);
    return stdout.trim() === SQLGLOT_VERSION;
  } catch {
    return false;
  }
}

/** The venv's python with sqlglot installed, or why the check must be skipped (no python3). */
export async function sqlglotPython(): Promise<{ readonly python: string } | { readonly skip: string }> {
  const dir = cacheDir();
  const python = path.join(dir, 'venv', 'bin', 'python');
  if (await works(python)) return { python };
  try {
    await run('python3', ['--version']);
  } catch {
    return { skip: 'python3 is not installed: the T-SQL parser check (sqlglot) cannot run' };
  }
  // Built beside the final place and moved there whole, so a concurrent run never sees half a venv.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await run('python3', ['-m', 'venv', path.join(tmp, 'venv')]);
  await run(path.join(tmp, 'venv', 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `sqlglot==${SQLGLOT_VERSION}`], {
    timeout: 300_000,
  });
  if (!(await works(python))) {
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(tmp, dir);
    } catch {
      // Another run finished first.
    }
  }
  rmSync(tmp, { recursive: true, force: true });
  if (!(await works(python))) throw new Error(`sqlglot ${SQLGLOT_VERSION} could not be installed in ${dir}`);
  return { python };
}

/** Parses each text as T-SQL; null where it parsed, else the parser's error. */
export async function parseTsql(python: string, texts: readonly string[]): Promise<(string | null)[]> {
  return await parseSql(
    python,
    'tsql',
    texts.map((t) => PARSER_GAPS.reduce((s, g) => s.replace(g.pattern, g.replacement), t)),
  );
}

/** Parses each text in sqlglot's `dialect` (`tsql`, `bigquery`), as {@link parseTsql} does without its rewrites. */
export async function parseSql(python: string, dialect: string, input: readonly string[]): Promise<(string | null)[]> {
  return await new Promise((resolve, reject) => {
    const child = spawn(python, ['-c', SCRIPT, dialect], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`sqlglot exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as (string | null)[]);
    });
    child.stdin.end(JSON.stringify(input));
  });
}
