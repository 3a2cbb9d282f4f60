/**
 * One-off scheduled events: schedule one (`create_scheduled_event`, with request and response
 * transforms and the engine's live preview on the event's own payload), list them, delete one.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Done, HeadersEditor, Status, headerConfs, useAction, type HeaderRow, type StatusValue } from '../../components.tsx';
import { InvocationList } from './InvocationList.tsx';
import { ScheduledEventList } from './ScheduledEventList.tsx';
import { parsePayload, useRetry } from './scheduled-form.ts';
import { TransformEditor } from '../../transforms/TransformEditor.tsx';
import { EMPTY_TRANSFORM, oneOffSample, requestTransformOf, responseTransformOf, type TransformForm } from '../../transforms/transform-form.ts';

/** `YYYY-MM-DDTHH:MM` of the browser's local time, as a datetime-local input takes it. */
function localNow(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function OneOffEvents() {
  const [webhook, setWebhook] = useState('');
  const [at, setAt] = useState(localNow);
  const [payload, setPayload] = useState('');
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const [comment, setComment] = useState('');
  const retry = useRetry(undefined);
  const [status, run] = useAction();
  const [listStatus, setListStatus] = useState<StatusValue>({ kind: 'idle' });
  const [reloadKey, setReloadKey] = useState(0);
  const [invocationsOf, setInvocationsOf] = useState<string | null>(null);
  const [transform, setTransform] = useState<TransformForm>(EMPTY_TRANSFORM);
  // null: the event as the form says it will be sent, until the sample is edited.
  const [sampleText, setSample] = useState<string | null>(null);
  const due = new Date(at);
  const sample = sampleText ?? oneOffSample(Number.isNaN(due.getTime()) ? '2024-01-01T00:00:00.000Z' : due.toISOString(), payload, comment);
  return (
    <>
      <h1>One-off scheduled events</h1>
      <form
        className="editor"
        aria-label="Schedule an event"
        onSubmit={(e) => {
          e.preventDefault();
          void run('Scheduling…', '', async () => {
            const when = new Date(at);
            if (Number.isNaN(when.getTime())) throw new Error('Choose when the event is due');
            const value = parsePayload(payload);
            const request = requestTransformOf(transform);
            const response = responseTransformOf(transform);
            const r = await callMetadata<{ event_id: string }>('create_scheduled_event', {
              webhook: webhook.trim(),
              schedule_at: when.toISOString(),
              ...(value !== undefined ? { payload: value } : {}),
              headers: headerConfs(headers),
              retry_conf: retry.build(),
              ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
              ...(request !== undefined ? { request_transform: request } : {}),
              ...(response !== undefined ? { response_transform: response } : {}),
            });
            setReloadKey((k) => k + 1);
            return new Done(`Scheduled event ${r.event_id}`);
          });
        }}
      >
        <h2>Schedule an event</h2>
        <div className="row">
          <label htmlFor="oneoff-webhook">Webhook URL</label>
          <input id="oneoff-webhook" className="wide-input" value={webhook} onChange={(e) => setWebhook(e.target.value)} />
        </div>
        <div className="row">
          <label htmlFor="oneoff-at">Due at (your local time)</label>
          <input id="oneoff-at" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
          <label htmlFor="oneoff-comment">Comment</label>
          <input id="oneoff-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="oneoff-payload">Payload (JSON, optional)</label>
          <textarea id="oneoff-payload" rows={3} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
        </div>
        <HeadersEditor label="Webhook headers" rows={headers} onChange={setHeaders} />
        <details className="transforms">
          <summary>Request and response transforms</summary>
          <TransformEditor
            idPrefix="oneoff-transform"
            value={transform}
            onChange={setTransform}
            webhookUrl={webhook.trim() === '' ? null : webhook.trim()}
            sample={sample}
            onSample={setSample}
          />
        </details>
        {retry.fields}
        <Status value={status} />
        <button type="submit" className="btn primary">
          Schedule event
        </button>
      </form>
      <h2>Events</h2>
      <Status value={listStatus} />
      <ScheduledEventList kind="one_off" trigger={null} reloadKey={reloadKey} onShowInvocations={setInvocationsOf} onStatus={setListStatus} />
      {invocationsOf !== null && <InvocationList key={invocationsOf} kind="one_off" trigger={null} eventId={invocationsOf} />}
    </>
  );
}
