/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f.close();
});

describe('test_webhook_transform', () => {
  it('answers the transformed request without sending it', async () => {
    const r = await f.md('test_webhook_transform', {
      webhook_url: 'http://127.0.0.1:9/never-called',
      body: { input: { name: 'ann', tags: ['a', 'b'] } },
      session_variables: { 'x-engine-role': 'user', 'x-engine-user-id': '9' },
      request_transform: {
        version: 2,
        template_engine: 'Kriti',
        method: 'GET',
        url: '{{$base_url}}/{{escapeUri(toUpper($body.input.name))}}',
        query_params: { user: '{{$session_variables["x-engine-user-id"]}}' },
        request_headers: { add_headers: { 'x-tags': '{{length($body.input.tags)}}' }, remove_headers: ['content-type'] },
        body: {
          action: 'transform',
          template:
            '{"names": [{{ range i, t := $body.input.tags }} "{{i}}:{{t}}" {{ end }}], "any": {{ if empty($body.input.tags) }} false {{ else }} true {{ end }}}',
        },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      body: { names: ['0:a', '1:b'], any: true },
      headers: [['x-tags', '2']],
      method: 'GET',
      webhook_url: 'http://127.0.0.1:9/never-called/ANN?user=9',
    });
  });

  it('a template error is a 400 naming the position', async () => {
    const r = await f.md('test_webhook_transform', {
      webhook_url: 'http://127.0.0.1:9/x',
      body: { a: 1 },
      request_transform: { version: 2, body: { action: 'transform', template: '{\n  "b": {{ $body.a }\n}' } },
    });
    expect(r.status).toBe(400);
    // v2 reports template errors at $.args (packTransformResult: throw400WithDetail ValidationFailed).
    expect(r.body).toMatchObject({ code: 'validation-failed', path: '$.args' });
    expect((r.body as any).error).toContain('at line 2, column');
    expect((r.body as any).internal[0]).toMatchObject({ error_code: 'Parse Error', source_position: { start_line: 2 } });

    const lookup = await f.md('test_webhook_transform', {
      webhook_url: 'http://127.0.0.1:9/x',
      body: { a: 1 },
      request_transform: { version: 2, body: { action: 'transform', template: '{{ $body.b }}' } },
    });
    expect(lookup.status).toBe(400);
    expect(lookup.body).toMatchObject({ code: 'validation-failed', path: '$.args' });
    expect((lookup.body as any).error).toContain("Path Lookup Error: '$body.b' does not exist at line 1, column 9");
  });

  // v2: tests-py queries/v1/metadata/test_webhook_transform_success_old_body_schema.yaml,
  // _success_form_urlencoded.yaml and _success_remove_body.yaml (headers case-folded with
  // content-type first, a form body in the template's key order, a removed body as "").
  it('answers as v2: content-type first, form fields in template order, a removed body as ""', async () => {
    const sample = { webhook_url: 'http://localhost:1234', body: { hello: 'world' } };
    const json = await f.md('test_webhook_transform', {
      ...sample,
      request_transform: {
        url: 'http://www.google.com',
        template_engine: 'Kriti',
        body: '"hello_{{ $body.hello }}"',
        method: 'POST',
        query_params: { foo: 'bar' },
        request_headers: { add_headers: { foo: 'bar', 'content-type': 'application/json' } },
      },
    });
    expect(json.body).toEqual({
      body: 'hello_world',
      headers: [
        ['content-type', 'application/json'],
        ['foo', 'bar'],
      ],
      method: 'POST',
      webhook_url: 'http://www.google.com?foo=bar',
    });
    const form = await f.md('test_webhook_transform', {
      ...sample,
      request_transform: {
        version: 2,
        url: 'http://www.google.com',
        template_engine: 'Kriti',
        body: { action: 'x_www_form_urlencoded', form_template: { foo: 'bar', baz: '{{$body.hello}}', abc: 'x' } },
        method: 'POST',
        query_params: { foo: 'bar' },
        request_headers: { add_headers: { foo: 'bar', 'content-type': 'application/x-www-form-urlencoded' } },
      },
    });
    expect(form.body).toEqual({
      body: 'foo=bar&baz=world&abc=x',
      headers: [
        ['content-type', 'application/x-www-form-urlencoded'],
        ['foo', 'bar'],
      ],
      method: 'POST',
      webhook_url: 'http://www.google.com?foo=bar',
    });
    const removed = await f.md('test_webhook_transform', {
      ...sample,
      request_transform: {
        version: 2,
        url: 'http://www.google.com',
        template_engine: 'Kriti',
        body: { action: 'remove' },
        method: 'GET',
        query_params: { foo: 'bar' },
        request_headers: { add_headers: { foo: 'bar' } },
      },
    });
    expect(removed.body).toEqual({ body: '', headers: [['foo', 'bar']], method: 'GET', webhook_url: 'http://www.google.com?foo=bar' });
  });

  it('bad args are refused cleanly', async () => {
    expect((await f.md('test_webhook_transform', { body: {} })).status).toBe(400);
    const env = await f.md('test_webhook_transform', { webhook_url: '{{ENGINE_TEST_UNSET_VAR_17}}/x', request_transform: {} });
    expect(env.status).toBe(400);
    expect((env.body as any).error).toContain('ENGINE_TEST_UNSET_VAR_17');
    const engine = await f.md('test_webhook_transform', { webhook_url: 'http://x', request_transform: { template_engine: 'Go' } });
    expect(engine.body).toMatchObject({ code: 'validation-failed', path: '$.args.request_transform.template_engine' });
  });
});
