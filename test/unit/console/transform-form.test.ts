/**
 * The transform editor's reading and writing (transforms/transform-form.ts): v2's version 2
 * `request_transform` / `response_transform` read into the form and written back, version 1's
 * bare body template read, and nothing written when the form changes nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  EMPTY_TRANSFORM,
  actionSample,
  cronSample,
  oneOffSample,
  readTransform,
  requestTransformOf,
  responseTransformOf,
} from '../../../engine/console/src/transforms/transform-form.ts';

describe('transform form', () => {
  it('writes back what it read', () => {
    const request = {
      version: 2,
      template_engine: 'Kriti',
      method: 'PUT',
      url: '{{$base_url}}/users/{{$body.input.id}}',
      query_params: { page: '{{$body.input.page}}' },
      request_headers: { add_headers: { 'x-api-key': 'k' }, remove_headers: ['cookie', 'x-debug'] },
      body: { action: 'transform', template: '{"id": {{$body.input.id}}}' },
    };
    const response = { version: 2, template_engine: 'Kriti', body: { action: 'transform', template: '{"ok": true}' } };
    const form = readTransform(request, response);
    expect(form.removeHeaders).toBe('cookie, x-debug');
    expect(requestTransformOf(form)).toEqual(request);
    expect(responseTransformOf(form)).toEqual(response);
  });

  it('writes nothing for an empty form, and reads the older forms', () => {
    expect(requestTransformOf(EMPTY_TRANSFORM)).toBeUndefined();
    expect(responseTransformOf(EMPTY_TRANSFORM)).toBeUndefined();
    const v1 = readTransform({ version: 1, body: '{{$body.input}}', query_params: '{{concat(["a=", $body.x])}}' }, undefined);
    expect(v1.body).toBe('transform');
    expect(v1.bodyTemplate).toBe('{{$body.input}}');
    expect(requestTransformOf(v1)).toEqual({
      version: 2,
      template_engine: 'Kriti',
      query_params: '{{concat(["a=", $body.x])}}',
      body: { action: 'transform', template: '{{$body.input}}' },
    });
  });

  it('writes a removed body and form fields, leaving out unnamed rows', () => {
    expect(requestTransformOf({ ...EMPTY_TRANSFORM, body: 'remove' })).toEqual({ version: 2, template_engine: 'Kriti', body: { action: 'remove' } });
    const form = {
      ...EMPTY_TRANSFORM,
      body: 'x_www_form_urlencoded' as const,
      formFields: [
        { name: 'a', value: '{{$body.x}}' },
        { name: ' ', value: 'dropped' },
      ],
    };
    expect(requestTransformOf(form)).toEqual({
      version: 2,
      template_engine: 'Kriti',
      body: { action: 'x_www_form_urlencoded', form_template: { a: '{{$body.x}}' } },
    });
  });

  it("samples an action's payload from its arguments", () => {
    expect(
      JSON.parse(
        actionSample('addNumbers', [
          { name: 'a', type: 'Int!' },
          { name: 'tags', type: '[String!]' },
        ]),
      ),
    ).toEqual({
      action: { name: 'addNumbers' },
      input: { a: 1, tags: ['text'] },
      session_variables: { 'x-engine-role': 'admin' },
      request_query: '',
    });
  });

  it('samples a scheduled event as the engine sends it: a one-off event has no trigger name and is due when the form says', () => {
    expect(JSON.parse(oneOffSample('2030-05-01T10:00:00.000Z', '{"order": 42}', ' note '))).toEqual({
      id: '00000000-0000-0000-0000-000000000000',
      name: null,
      scheduled_time: '2030-05-01T10:00:00.000Z',
      payload: { order: 42 },
      comment: 'note',
    });
    expect(JSON.parse(cronSample('nightly', '', ''))).toMatchObject({ name: 'nightly', payload: null, comment: null });
  });
});
