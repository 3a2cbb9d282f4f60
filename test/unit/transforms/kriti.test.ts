import { describe, expect, it } from 'vitest';
import {
  basicFunctions,
  evaluate,
  type Json,
  KritiError,
  parseStringTemplate,
  parseTemplate,
  transformFunctions,
} from '../../../engine/transforms/kriti/index.ts';

const source: Record<string, Json> = {
  $body: {
    name: 'Freddie Jones',
    age: 27,
    tags: ['a', 'b'],
    'my key': 'spaced',
    author: {
      articles: [
        { id: 0, title: 'The Elements', published: true },
        { id: 1, title: 'ARRL Handbook', published: true },
        { id: 2, title: 'The Mars Trilogy', published: false },
      ],
    },
    nothing: null,
  },
  $base_url: 'http://example.com/api',
  $session_variables: { 'x-engine-user-id': '42', 'x-engine-role': 'user' },
};

function run(template: string, bindings: Record<string, Json> = source): Json {
  return evaluate(parseTemplate(template), bindings, transformFunctions({ 'x-engine-user-id': '42', 'x-engine-role': 'user' }));
}

function str(template: string): Json {
  return evaluate(parseStringTemplate(template), source, basicFunctions);
}

function failure(f: () => unknown): KritiError {
  try {
    f();
  } catch (e) {
    if (e instanceof KritiError) return e;
    throw e;
  }
  throw new Error('expected a KritiError');
}

describe('Kriti: JSON values', () => {
  it('renders plain JSON as itself', () => {
    const doc = { a: [1, 2.5, -3e2], b: 'hello "world"\n', c: true, d: false, e: null, f: {}, g: [] };
    expect(run(JSON.stringify(doc))).toEqual(doc);
    expect(run('  42  ')).toBe(42);
  });

  it('interpolates values in place of JSON values', () => {
    expect(run('{"a": {{ 2 }}, "b": {{ $body.name }}, "c": {{ $body.tags }}}')).toEqual({ a: 2, b: 'Freddie Jones', c: ['a', 'b'] });
  });

  it('interpolates into strings: strings as is, numbers and booleans as JSON', () => {
    expect(run('"Hi {{$body.name}}, {{ $body.age }} {{ true }}!"')).toBe('Hi Freddie Jones, 27 true!');
    expect(str('{{$base_url}}/users/{{$body.age}}')).toBe('http://example.com/api/users/27');
    expect(str('plain text')).toBe('plain text');
  });

  it('refuses to interpolate null, objects and arrays into a string', () => {
    const e = failure(() => run('"x {{ $body.tags }}"'));
    expect(e.code).toBe('Type Error');
    expect(e.message).toContain('Array');
    expect(e.span.start).toMatchObject({ line: 1, column: 4 });
  });
});

describe('Kriti: paths', () => {
  it('looks up fields, quoted keys and indices', () => {
    expect(run('{{ $body.author.articles[1].title }}')).toBe('ARRL Handbook');
    expect(run("{{ $body['my key'] }}")).toBe('spaced');
    expect(run("{{ $session_variables['x-engine-user-id'] }}")).toBe('42');
    expect(run('{{ $body.tags[0] }}')).toBe('a');
  });

  it('optional lookups give null and short-circuit the rest of the path', () => {
    expect(run('{{ $body?.missing }}')).toBeNull();
    expect(run('{{ $body?.missing.deeper.still }}')).toBeNull();
    expect(run("{{ $body?['missing key'] }}")).toBeNull();
    expect(run('{{ $body.tags?[9] }}')).toBeNull();
  });

  it('a missing field names the path and its position', () => {
    const e = failure(() => run('{\n  "x": {{ $body.author.nope }}\n}'));
    expect(e.code).toBe('Path Lookup Error');
    expect(e.message).toContain("'$body.author.nope' does not exist");
    expect(e.span.start).toMatchObject({ line: 2, column: 23 });
    expect(e.message).toContain('at line 2, column 23');
  });

  it('an unbound variable and an index out of range are errors', () => {
    expect(failure(() => run('{{ $nope }}')).message).toContain("'$nope' is not bound");
    expect(failure(() => run('{{ $body.tags[5] }}')).message).toContain('out of range');
    expect(failure(() => run('{{ $body.name.first }}')).code).toBe('Type Error');
  });
});

describe('Kriti: operators', () => {
  it('compares', () => {
    expect(run('{{ $body.age == 27 }}')).toBe(true);
    expect(run('{{ $body.age != 27 }}')).toBe(false);
    expect(run('{{ $body.age > 20 }}')).toBe(true);
    expect(run('{{ $body.age < 20 }}')).toBe(false);
    expect(run('{{ $body.age >= 27 }}')).toBe(true);
    expect(run('{{ $body.age <= 26 }}')).toBe(false);
    expect(run('{{ "abc" < "abd" }}')).toBe(true);
    expect(run('{{ $body.tags == ["a", "b"] }}')).toBe(true);
    expect(run('{{ {"k": 1} == {"k": 1} }}')).toBe(true);
  });

  it('combines booleans with && and ||, with parentheses', () => {
    expect(run('{{ $body.age > 20 && ($body.name == "x" || true) }}')).toBe(true);
    expect(run('{{ false && $nope }}')).toBe(false);
    expect(failure(() => run('{{ 1 && true }}')).code).toBe('Type Error');
  });

  it('tests membership with in', () => {
    expect(run('{{ "a" in $body.tags }}')).toBe(true);
    expect(run('{{ "z" in $body.tags }}')).toBe(false);
    expect(run('{{ "name" in $body }}')).toBe(true);
    expect(failure(() => run('{{ 1 in "abc" }}')).code).toBe('Type Error');
  });

  it('defaults null with ??', () => {
    expect(run('{{ $body.nothing ?? "fallback" }}')).toBe('fallback');
    expect(run('{{ $body?.missing ?? $body.age }}')).toBe(27);
    expect(run('{{ $body.name ?? "fallback" }}')).toBe('Freddie Jones');
  });

  it('comparing unlike types is a type error at the operator', () => {
    const e = failure(() => run('{{ $body.age > "x" }}'));
    expect(e.code).toBe('Type Error');
    expect(e.span.start.column).toBe(4);
  });
});

describe('Kriti: if and range', () => {
  it('if / elif / else / end', () => {
    const t = '{{ if $body.age > 60 }} "old" {{ elif $body.age > 18 }} "adult" {{ else }} "young" {{ end }}';
    expect(run(t)).toBe('adult');
    expect(run(t, { ...source, $body: { age: 70 } })).toBe('old');
    expect(run(t, { ...source, $body: { age: 3 } })).toBe('young');
    expect(run('{{ if false }} 1 {{ end }}')).toBeNull();
    expect(failure(() => run('{{ if 1 }} 1 {{ else }} 2 {{ end }}')).code).toBe('Type Error');
  });

  it('range with index and value builds an array', () => {
    expect(run('{{ range i, x := $body.tags }} {"i": {{i}}, "v": {{x}}} {{ end }}')).toEqual([
      { i: 0, v: 'a' },
      { i: 1, v: 'b' },
    ]);
  });

  it('range inside an array literal is spliced, with if inside (the kriti-lang README example)', () => {
    const t = `{"articles": [
      {{ range _, x := $body.author.articles }}
        {{ if x.published }} {"id": {{x.id}}, "title": {{x.title}}} {{ else }} null {{ end }}
      {{ end }}
    ]}`;
    expect(run(t)).toEqual({ articles: [{ id: 0, title: 'The Elements' }, { id: 1, title: 'ARRL Handbook' }, null] });
  });

  it('ranging over a non-array is a range error naming the source', () => {
    const e = failure(() => run('{{ range _, x := $body.name }} 1 {{ end }}'));
    expect(e.code).toBe('Range Error');
    expect(e.span.start.column).toBe(18);
  });
});

describe('Kriti: functions', () => {
  it('empty', () => {
    expect(run('{{ empty($body.tags) }}')).toBe(false);
    expect(run('{{ empty([]) }}')).toBe(true);
    expect(run('{{ empty({}) }}')).toBe(true);
    expect(run('{{ empty("  ") }}')).toBe(true);
    expect(run('{{ empty(0) }}')).toBe(true);
    expect(run('{{ empty(null) }}')).toBe(true);
    expect(failure(() => run('{{ empty(true) }}')).code).toBe('Function Error');
  });

  it('length (and size)', () => {
    expect(run('{{ length($body.tags) }}')).toBe(2);
    expect(run('{{ length("héllo") }}')).toBe(5);
    expect(run('{{ length({"a": 1}) }}')).toBe(1);
    expect(run('{{ length(null) }}')).toBe(0);
    expect(run('{{ size([1,2,3]) }}')).toBe(3);
  });

  it('inverse', () => {
    expect(run('{{ inverse([1,2,3]) }}')).toEqual([3, 2, 1]);
    expect(run('{{ inverse("abc") }}')).toBe('cba');
    expect(run('{{ inverse(4) }}')).toBe(0.25);
    expect(run('{{ inverse(true) }}')).toBe(false);
    expect(run('{{ inverse(null) }}')).toBeNull();
  });

  it('head and tail', () => {
    expect(run('{{ head($body.tags) }}')).toBe('a');
    expect(run('{{ head("xyz") }}')).toBe('x');
    expect(run('{{ tail($body.tags) }}')).toEqual(['b']);
    expect(run('{{ tail("xyz") }}')).toBe('yz');
    expect(failure(() => run('{{ head([]) }}')).message).toContain('empty array');
    expect(failure(() => run('{{ tail(1) }}')).code).toBe('Function Error');
  });

  it('toUpper, toLower, toCaseFold, toTitle', () => {
    expect(run('{{ toUpper($body.name) }}')).toBe('FREDDIE JONES');
    expect(run('{{ toLower($body.name) }}')).toBe('freddie jones');
    expect(run('{{ toCaseFold("ABC") }}')).toBe('abc');
    expect(run('{{ toTitle("hello wORLD") }}')).toBe('Hello World');
    expect(failure(() => run('{{ toUpper(1) }}')).message).toContain('expects a String');
  });

  it('escapeUri, in call and prefix form', () => {
    expect(run('{{ escapeUri("a b/c?d=é") }}')).toBe('a%20b%2Fc%3Fd%3D%C3%A9');
    expect(run('{{ escapeUri $body.name }}')).toBe('Freddie%20Jones');
    expect(str('{{$base_url}}?q={{ escapeUri($body.name) }}')).toBe('http://example.com/api?q=Freddie%20Jones');
  });

  it('toPairs and fromPairs', () => {
    expect(run('{{ toPairs({"a": 1, "b": [2]}) }}')).toEqual([
      ['a', 1],
      ['b', [2]],
    ]);
    expect(run('{{ fromPairs([["a", 1], ["b", 2]]) }}')).toEqual({ a: 1, b: 2 });
    expect(run('{{ fromPairs(toPairs($session_variables)) }}')).toEqual(source['$session_variables']);
    expect(failure(() => run('{{ fromPairs([[1, 2]]) }}')).code).toBe('Function Error');
  });

  it('removeNulls', () => {
    expect(run('{{ removeNulls([1, null, 2, null]) }}')).toEqual([1, 2]);
    expect(failure(() => run('{{ removeNulls({}) }}')).code).toBe('Function Error');
  });

  it('concat arrays, strings and objects', () => {
    expect(run('{{ concat([[1, 2], [3]]) }}')).toEqual([1, 2, 3]);
    expect(run('{{ concat(["a", "-", $body.name]) }}')).toBe('a-Freddie Jones');
    expect(run('{{ concat([{"a": 1, "b": 2}, {"b": 3}]) }}')).toEqual({ a: 1, b: 3 });
    expect(failure(() => run('{{ concat([1, "a"]) }}')).code).toBe('Function Error');
  });

  it('not, in call and prefix form', () => {
    expect(run('{{ not(true) }}')).toBe(false);
    expect(run('{{ not $body.author.articles[2].published }}')).toBe(true);
    expect(run('{{ if not empty($body.tags) }} "some" {{ else }} "none" {{ end }}')).toBe('some');
    expect(failure(() => run('{{ not 1 }}')).code).toBe('Function Error');
  });

  it('getSessionVariable reads session variables case-insensitively', () => {
    expect(run('{{ getSessionVariable("X-Engine-User-Id") }}')).toBe('42');
    const e = failure(() => run('{{ getSessionVariable("x-engine-org") }}'));
    expect(e.message).toContain('not found');
    expect(failure(() => evaluate(parseTemplate('{{ getSessionVariable("a") }}'), {}, transformFunctions(null))).code).toBe('Function Error');
  });

  it('an unknown function is an error at the call', () => {
    const e = failure(() => run('{"a": {{ shout($body.name) }}}'));
    expect(e.message).toContain("unknown function 'shout'");
    expect(e.span.start.column).toBe(10);
  });
});

describe('Kriti: parse errors name the position', () => {
  const cases: Array<[string, string, number, number]> = [
    ['{"a": {{ $body.name }', "expected '}}'", 1, 21],
    ['{"a": 1,, "b": 2}', 'expected an object key', 1, 9],
    ['{{ if true }} 1', "closing the 'if' at line 1, column 1", 1, 16],
    ['{{ range _, x := $body.tags }} 1', "closing the 'range'", 1, 33],
    ['{{ end }}', 'without a matching', 1, 1],
    ['[1, 2', "expected ',' or ']'", 1, 6],
    ['"abc', 'unterminated string', 1, 1],
    ['{"a": 1} extra', 'after the end of the template', 1, 10],
    ['{\n  "a": {{ $body. }}\n}', 'expected a field name', 2, 17],
    ['{{ $body[x] }}', 'expected an array index', 1, 10],
  ];
  it.each(cases)('%s', (template, detail, line, column) => {
    const e = failure(() => parseTemplate(template));
    expect(e.code).toBe('Parse Error');
    expect(e.message).toContain(detail);
    expect(e.span.start).toMatchObject({ line, column });
    expect(e.toJSON().source_position).toMatchObject({ start_line: line, start_column: column });
  });
});
