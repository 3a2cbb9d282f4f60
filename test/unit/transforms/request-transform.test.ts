import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors/engine-error.ts';
import {
  applyRequestTransform,
  applyResponseTransform,
  compileRequestTransform,
  compileResponseTransform,
  resolveUrlTemplate,
  testWebhookTransform,
} from '../../../engine/transforms/index.ts';

const request = {
  method: 'POST',
  url: 'http://handler.local/api?keep=1',
  headers: [
    ['Content-Type', 'application/json'],
    ['X-Secret', 's'],
  ] as Array<[string, string]>,
  body: { action: { name: 'login' }, input: { username: 'ann', password: 'p w' } },
};
const session = { 'x-engine-role': 'user', 'x-engine-user-id': '7' };

function engineError(f: () => unknown): EngineError {
  try {
    f();
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected an EngineError');
}

describe('request transforms', () => {
  it('no transform sends the request as it is', () => {
    const out = applyRequestTransform(null, request, session);
    expect(out).toMatchObject({ method: 'POST', url: 'http://handler.local/api?keep=1', body: JSON.stringify(request.body) });
    expect(out.queryParams).toEqual([['keep', '1']]);
  });

  it('version 2: method, url, query params, headers and body', () => {
    const t = compileRequestTransform(
      {
        version: 2,
        template_engine: 'Kriti',
        method: 'put',
        url: '{{$base_url}}/users/{{$body.input.username}}',
        query_params: { user: '{{$session_variables["x-engine-user-id"]}}', old: '{{$query_params.keep}}', gone: null },
        request_headers: { remove_headers: ['x-secret'], add_headers: { 'X-User': '{{getSessionVariable("X-Engine-User-Id")}}' } },
        body: { action: 'transform', template: '{"user": {"name": {{$body.input.username}}, "role": {{$session_variables["x-engine-role"]}}}}' },
      },
      '$.t',
    );
    const out = applyRequestTransform(t, request, session);
    expect(out.method).toBe('PUT');
    expect(out.baseUrl).toBe('http://handler.local/api/users/ann');
    expect(out.url).toBe('http://handler.local/api/users/ann?user=7&old=1');
    expect(out.queryParams).toEqual([
      ['user', '7'],
      ['old', '1'],
    ]);
    expect(out.headers).toEqual([
      ['Content-Type', 'application/json'],
      ['X-User', '7'],
    ]);
    expect(JSON.parse(out.body ?? '')).toEqual({ user: { name: 'ann', role: 'user' } });
  });

  it('query_params as one string template replaces the query string', () => {
    const t = compileRequestTransform({ version: 2, query_params: 'a={{$body.input.username}}&b=2' }, '$');
    expect(applyRequestTransform(t, request, session).url).toBe('http://handler.local/api?a=ann&b=2');
  });

  it('version 2 form bodies are url-encoded and set the content type', () => {
    const t = compileRequestTransform(
      { version: 2, body: { action: 'x_www_form_urlencoded', form_template: { user: '{{$body.input.username}}', pw: '{{$body.input.password}}' } } },
      '$',
    );
    const out = applyRequestTransform(t, request, session);
    expect(out.body).toBe('user=ann&pw=p%20w');
    expect(out.headers).toContainEqual(['Content-Type', 'application/x-www-form-urlencoded']);
    expect(out.headers.filter(([n]) => n.toLowerCase() === 'content-type')).toHaveLength(1);
  });

  it('version 1: body template and form content type', () => {
    const json = compileRequestTransform({ body: '{"n": {{$body.input.username}}}' }, '$');
    expect(applyRequestTransform(json, request, session).body).toBe('{"n":"ann"}');
    const form = compileRequestTransform({ body: '{"n": {{$body.input.username}}, "x": 1}', content_type: 'application/x-www-form-urlencoded' }, '$');
    expect(applyRequestTransform(form, request, session).body).toBe('n=ann&x=1');
  });

  it('remove drops the body and its content type', () => {
    const t = compileRequestTransform({ version: 2, method: 'GET', body: { action: 'remove' } }, '$');
    const out = applyRequestTransform(t, request, session);
    expect(out.body).toBeUndefined();
    expect(out.headers).toEqual([['X-Secret', 's']]);
  });

  it('bad shapes are validation-failed at the key', () => {
    expect(engineError(() => compileRequestTransform({ version: 3 }, '$.t'))).toMatchObject({ code: 'validation-failed', path: '$.t.version' });
    expect(engineError(() => compileRequestTransform({ template_engine: 'Go' }, '$.t')).path).toBe('$.t.template_engine');
    expect(engineError(() => compileRequestTransform({ method: 'FETCH' }, '$.t')).path).toBe('$.t.method');
    expect(engineError(() => compileRequestTransform({ bogus: 1 }, '$.t')).path).toBe('$.t.bogus');
    expect(engineError(() => compileRequestTransform({ version: 2, body: { action: 'zip' } }, '$.t')).path).toBe('$.t.body.action');
  });

  it('a template that does not parse names the field and the position', () => {
    const e = engineError(() => compileRequestTransform({ version: 2, body: { action: 'transform', template: '{"a": {{ $body.x }' } }, '$.t'));
    expect(e.code).toBe('validation-failed');
    expect(e.path).toBe('$.t.body.template');
    expect(e.message).toContain('body.template: Parse Error');
    expect(e.internal).toEqual([
      expect.objectContaining({ error_code: 'Parse Error', source_position: expect.objectContaining({ start_line: 1, start_column: 18 }) }),
    ]);
  });

  it('an unknown function is refused when the transform is compiled', () => {
    const e = engineError(() => compileRequestTransform({ version: 2, body: { action: 'transform', template: '{"a": {{ shout($body) }}}' } }, '$.t'));
    expect(e.message).toContain("unknown function 'shout' at line 1, column 10");
    expect(engineError(() => compileResponseTransform({ body: '{{ nope(1) }}' }, '$.r')).path).toBe('$.r.body');
  });

  it('a template that fails to evaluate is validation-failed with the position', () => {
    const t = compileRequestTransform({ url: '{{$base_url}}/{{$body.nope}}' }, '$.t');
    const e = engineError(() => applyRequestTransform(t, request, session));
    expect(e.path).toBe('$.t.url');
    expect(e.message).toContain("url: Path Lookup Error: '$body.nope' does not exist at line 1, column 22");
  });
});

describe('response transforms', () => {
  const ctx = { requestBody: request.body, queryParams: [] as Array<[string, string]>, session, status: 200 };
  it('reshapes the body with $body, $request and $response', () => {
    const t = compileResponseTransform(
      { version: 2, body: { action: 'transform', template: '{"id": {{$body.user_id}}, "who": {{$request.body.input.username}}, "s": {{$response.status}}}' } },
      '$',
    );
    expect(applyResponseTransform(t, { user_id: 5 }, ctx)).toEqual({ id: 5, who: 'ann', s: 200 });
    expect(applyResponseTransform(compileResponseTransform({ version: 1, body: '{{$body[0]}}' }, '$'), [3], ctx)).toBe(3);
    expect(applyResponseTransform(compileResponseTransform({ version: 2, body: { action: 'remove' } }, '$'), { a: 1 }, ctx)).toBeNull();
    expect(applyResponseTransform(null, { a: 1 }, ctx)).toEqual({ a: 1 });
  });
});

describe('test_webhook_transform and URL templates', () => {
  it('answers body, headers, method and webhook_url', () => {
    const out = testWebhookTransform(
      {
        webhook_url: '{{BASE}}/hook',
        body: { x: 1 },
        env: { BASE: 'http://h.local' },
        session_variables: { 'X-Engine-User-Id': '3' },
        request_transform: {
          version: 2,
          method: 'GET',
          url: '{{$base_url}}/{{$body.x}}',
          request_headers: { add_headers: { 'x-u': '{{getSessionVariable("x-engine-user-id")}}' } },
        },
      },
      '$.args',
      () => undefined,
    );
    expect(out).toEqual({
      body: { x: 1 },
      headers: [
        ['content-type', 'application/json'],
        ['x-u', '3'],
      ],
      method: 'GET',
      webhook_url: 'http://h.local/hook/1',
    });
  });

  it('an unset environment variable is a clean error', () => {
    const e = engineError(() => resolveUrlTemplate('{{NOPE}}/x', () => undefined, '$.args.handler'));
    expect(e).toMatchObject({ status: 400, path: '$.args.handler' });
    expect(e.message).toContain('NOPE');
  });
});
