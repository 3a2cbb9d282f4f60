/**
 * The pieces of `/v1alpha1/pg_dump` that need no database: the allow-list of pg_dump flags
 * (Note [pg_dump arguments]), v2's clean_output, and the choice of the pg_dump program by the
 * server's version (Note [Which pg_dump]) among the installed ones.
 */
import { describe, expect, it } from 'vitest';
import { checkDumpOptions, choosePgDump, cleanDump } from '../../../../engine/backends/postgres/pg-dump.ts';
import { isEngineError } from '../../../../engine/errors/engine-error.ts';
import { systemPostgres } from '../../../support/postgres-debian.ts';

function refusal(opts: string[]): { code: string; path: string | undefined } | null {
  try {
    checkDumpOptions(opts);
    return null;
  } catch (e) {
    if (!isEngineError(e)) throw e;
    return { code: e.code, path: e.path };
  }
}

describe('pg_dump options', () => {
  it("admits v2's options and the other selection flags in their forms", () => {
    const v2 = ['-O', '-x', '--schema-only', '--schema', 'public', '--exclude-schema', 'auth'];
    expect(checkDumpOptions(v2)).toEqual(v2);
    expect(checkDumpOptions(['--data-only', '--inserts', '--table=public.a', '-npublic', '-T', 'b'])).toEqual([
      '--data-only',
      '--inserts',
      '--table=public.a',
      '-npublic',
      '-T',
      'b',
    ]);
  });

  it('refuses files, other connections, formats, jobs and bare arguments at their index', () => {
    expect(refusal(['--schema-only', '-f', '/tmp/x'])).toEqual({ code: 'bad-request', path: '$.opts[1]' });
    expect(refusal(['--file=/tmp/x'])).toEqual({ code: 'bad-request', path: '$.opts[0]' });
    for (const bad of [['-h', 'evil'], ['--host=evil'], ['-d', 'postgres://x'], ['-Fc'], ['-j', '4'], ['--role=x'], ['-Ox'], ['db']]) {
      expect(refusal(bad)?.code).toBe('bad-request');
    }
    expect(refusal(['--schema'])).toEqual({ code: 'bad-request', path: '$.opts[0]' });
    // A flag's value is pg_dump's pattern, never read as a flag.
    expect(checkDumpOptions(['--schema', '-f'])).toEqual(['--schema', '-f']);
  });
});

describe('clean_output', () => {
  it("drops v2's lines: comments, blank lines, front matter, event trigger triggers", () => {
    const dump = [
      '--',
      '-- PostgreSQL database dump',
      '\\restrict abc',
      'SET statement_timeout = 0;',
      "SET client_encoding = 'UTF8';",
      "SELECT pg_catalog.set_config('search_path', '', false);",
      'SET default_table_access_method = heap;',
      '',
      'CREATE TABLE public.a (',
      '    id integer NOT NULL',
      ');',
      'CREATE TRIGGER notify_engine_t_INSERT AFTER INSERT ON public.a FOR EACH ROW EXECUTE FUNCTION engine_events."notify_t"();',
      // Captures of inserts and deletes are statement triggers over a transition table (Note [Capture triggers]).
      'CREATE TRIGGER "notify_engine_u_DELETE" AFTER DELETE ON public.a REFERENCING OLD TABLE AS engine_old_rows FOR EACH STATEMENT EXECUTE FUNCTION engine_events."notify_u"();',
      'CREATE TRIGGER audit AFTER INSERT ON public.a FOR EACH ROW EXECUTE FUNCTION public.audit();',
      '\\unrestrict abc',
      '',
    ].join('\n');
    expect(cleanDump(dump)).toBe(
      'CREATE TABLE public.a (\n    id integer NOT NULL\n);\nCREATE TRIGGER audit AFTER INSERT ON public.a FOR EACH ROW EXECUTE FUNCTION public.audit();\n',
    );
  });
});

describe('which pg_dump', () => {
  const sys = systemPostgres();
  const env = (name: string): string | undefined => (name === 'PATH' ? '' : undefined);

  it.skipIf(sys === null)('takes an installed pg_dump for a server of its version, and names what is missing for a newer one', async () => {
    const major = sys?.major ?? 0;
    expect(await choosePgDump(major, env)).toMatchObject({ major: expect.any(Number) as number });
    expect((await choosePgDump(major, env)).major).toBeGreaterThanOrEqual(major);
    await expect(choosePgDump(major + 50, env)).rejects.toThrow(new RegExp(`needs a pg_dump of version ${major + 50} or newer \\(found: .*${major}`));
    await expect(choosePgDump(10, (n) => (n === 'ENGINE_PG_DUMP_PATH' ? '/nonexistent/pg_dump' : undefined))).rejects.toThrow(/none was found/);
  });
});
