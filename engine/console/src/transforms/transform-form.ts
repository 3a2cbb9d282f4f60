/**
 * A webhook's request and response transforms (v2's `request_transform` / `response_transform`,
 * version 2, Kriti templates; engine/transforms/ runs them) as their editor holds them: the text
 * of each field, read from the definitions and written back. Templates stay text: the engine
 * parses them (the live preview, `test_webhook_transform`, and the save both answer its error).
 */

/** One name/value row (a query parameter, a header to add, a form field of the body). */
export interface PairRow {
  readonly name: string;
  readonly value: string;
}

export type BodyAction = 'keep' | 'transform' | 'remove' | 'x_www_form_urlencoded';

export interface TransformForm {
  /** '' keeps the request's method. */
  readonly method: string;
  /** '' keeps the URL; a Kriti template such as `{{$base_url}}/v2/orders`. */
  readonly url: string;
  /** Query parameters as name → template rows, or (v2's other form) one template of the whole query. */
  readonly queryParams: readonly PairRow[];
  readonly queryTemplate: string | null;
  readonly addHeaders: readonly PairRow[];
  /** Header names, comma-separated. */
  readonly removeHeaders: string;
  readonly body: BodyAction;
  readonly bodyTemplate: string;
  readonly formFields: readonly PairRow[];
  /** '' is no response transform. */
  readonly responseBody: string;
}

export const EMPTY_TRANSFORM: TransformForm = {
  method: '',
  url: '',
  queryParams: [],
  queryTemplate: null,
  addHeaders: [],
  removeHeaders: '',
  body: 'keep',
  bodyTemplate: '',
  formFields: [],
  responseBody: '',
};

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

type Obj = Readonly<Record<string, unknown>>;

function obj(v: unknown): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

function rows(v: unknown): PairRow[] {
  return Object.entries(obj(v)).map(([name, value]) => ({ name, value: typeof value === 'string' ? value : '' }));
}

/** The form of a `request_transform` and `response_transform` (either may be absent). */
export function readTransform(request: unknown, response: unknown): TransformForm {
  const r = obj(request);
  const q = r['query_params'];
  const body = r['body'];
  // Version 1 wrote the body as a bare template.
  const b = typeof body === 'string' ? { action: 'transform', template: body } : obj(body);
  const action: BodyAction =
    b['action'] === 'transform' || b['action'] === 'remove' || b['action'] === 'x_www_form_urlencoded' ? (b['action'] as BodyAction) : 'keep';
  const resBody = obj(response)['body'];
  const rb = typeof resBody === 'string' ? resBody : obj(resBody)['action'] === 'transform' ? String(obj(resBody)['template'] ?? '') : '';
  return {
    method: typeof r['method'] === 'string' ? r['method'] : '',
    url: typeof r['url'] === 'string' ? r['url'] : '',
    queryParams: typeof q === 'string' ? [] : rows(q),
    queryTemplate: typeof q === 'string' ? q : null,
    addHeaders: rows(obj(r['request_headers'])['add_headers']),
    removeHeaders: (Array.isArray(obj(r['request_headers'])['remove_headers']) ? (obj(r['request_headers'])['remove_headers'] as unknown[]) : []).join(', '),
    body: action,
    bodyTemplate: typeof b['template'] === 'string' ? b['template'] : '',
    formFields: rows(b['form_template']),
    responseBody: rb,
  };
}

function named(rs: readonly PairRow[]): Record<string, string> | undefined {
  const kept = rs.filter((r) => r.name.trim() !== '');
  return kept.length === 0 ? undefined : Object.fromEntries(kept.map((r) => [r.name.trim(), r.value]));
}

/** The `request_transform` the form says, or undefined when it changes nothing. */
export function requestTransformOf(f: TransformForm): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (f.method !== '') out['method'] = f.method;
  if (f.url.trim() !== '') out['url'] = f.url.trim();
  if (f.queryTemplate !== null) {
    if (f.queryTemplate.trim() !== '') out['query_params'] = f.queryTemplate;
  } else {
    const q = named(f.queryParams);
    if (q !== undefined) out['query_params'] = q;
  }
  const add = named(f.addHeaders);
  const remove = f.removeHeaders
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  if (add !== undefined || remove.length > 0) {
    out['request_headers'] = { ...(add !== undefined ? { add_headers: add } : {}), ...(remove.length > 0 ? { remove_headers: remove } : {}) };
  }
  if (f.body === 'transform') out['body'] = { action: 'transform', template: f.bodyTemplate };
  else if (f.body === 'remove') out['body'] = { action: 'remove' };
  else if (f.body === 'x_www_form_urlencoded') out['body'] = { action: 'x_www_form_urlencoded', form_template: named(f.formFields) ?? {} };
  if (Object.keys(out).length === 0) return undefined;
  return { version: 2, template_engine: 'Kriti', ...out };
}

/** The `response_transform` the form says, or undefined. */
export function responseTransformOf(f: TransformForm): Record<string, unknown> | undefined {
  if (f.responseBody.trim() === '') return undefined;
  return { version: 2, template_engine: 'Kriti', body: { action: 'transform', template: f.responseBody } };
}

/** The sample an action's handler is sent (v2's action payload), for the preview. */
export function actionSample(name: string, args: ReadonlyArray<{ readonly name: string; readonly type: string }>): string {
  const input = Object.fromEntries(args.map((a) => [a.name, sampleOf(a.type)]));
  return JSON.stringify({ action: { name }, input, session_variables: { 'x-engine-role': 'admin' }, request_query: '' }, null, 2);
}

/** The sample an event trigger's webhook is sent (v2's event payload of an insert), for the preview. */
export function eventSample(trigger: string, table: { schema: string; name: string }, columns: readonly string[]): string {
  const row = Object.fromEntries(columns.map((c) => [c, null]));
  return JSON.stringify(
    {
      event: { op: 'INSERT', data: { old: null, new: row }, session_variables: { 'x-engine-role': 'admin' } },
      created_at: '2024-01-01T00:00:00.000Z',
      id: '00000000-0000-0000-0000-000000000000',
      delivery_info: { max_retries: 0, current_retry: 0 },
      trigger: { name: trigger },
      table,
    },
    null,
    2,
  );
}

/** The sample a cron trigger's webhook is sent (v2's scheduled event payload), for the preview. */
export function cronSample(trigger: string, payload: string, comment: string): string {
  return scheduledSample(trigger, '2024-01-01T00:00:00.000Z', payload, comment);
}

/**
 * The sample a one-off scheduled event's webhook is sent, for the preview: the same payload as a
 * cron trigger's, without a trigger (`name` null), at the time the form says it is due.
 */
export function oneOffSample(scheduledTime: string, payload: string, comment: string): string {
  return scheduledSample(null, scheduledTime, payload, comment);
}

function scheduledSample(trigger: string | null, scheduledTime: string, payload: string, comment: string): string {
  let value: unknown = null;
  try {
    value = payload.trim() === '' ? null : JSON.parse(payload);
  } catch {
    value = payload;
  }
  return JSON.stringify(
    {
      id: '00000000-0000-0000-0000-000000000000',
      name: trigger,
      scheduled_time: scheduledTime,
      payload: value,
      comment: comment.trim() === '' ? null : comment.trim(),
    },
    null,
    2,
  );
}

function sampleOf(type: string): unknown {
  const base = type.replace(/[![\]]/g, '');
  const v = base === 'Int' ? 1 : base === 'Float' ? 1.5 : base === 'Boolean' ? true : base === 'String' || base === 'ID' ? 'text' : null;
  return type.trim().startsWith('[') ? [v] : v;
}
