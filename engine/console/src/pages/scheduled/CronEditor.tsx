/**
 * The editor of a cron trigger: create, or modify (`create_cron_trigger` with `replace`; request
 * and response transforms with the engine's live preview included), and delete.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { HeadersEditor, Status, headerConfs, headerRows, useAction, type HeaderRow } from '../../components.tsx';
import { useMetadata, type CronTriggerEntry } from '../../metadata-state.tsx';
import { EditorButtons } from '../../lists.tsx';
import { parsePayload, useRetry } from './scheduled-form.ts';
import { TransformEditor } from '../../transforms/TransformEditor.tsx';
import { cronSample, readTransform, requestTransformOf, responseTransformOf, type TransformForm } from '../../transforms/transform-form.ts';

const SCHEDULES: ReadonlyArray<readonly [string, string]> = [
  ['Every minute', '* * * * *'],
  ['Every hour', '0 * * * *'],
  ['Every day at midnight (UTC)', '0 0 * * *'],
];

export function CronEditor({
  entry,
  notice,
  onDone,
  reload,
}: {
  entry: CronTriggerEntry | null;
  notice: string | null;
  onDone: (to: Record<string, string>, text: string) => void;
  reload: () => Promise<void>;
}) {
  const { refresh } = useMetadata();
  const [name, setName] = useState(entry?.name ?? '');
  const [webhook, setWebhook] = useState(entry?.webhook ?? '');
  const [schedule, setSchedule] = useState(entry?.schedule ?? '');
  const [payload, setPayload] = useState(entry?.payload === undefined ? '' : JSON.stringify(entry.payload, null, 2));
  const [headers, setHeaders] = useState<HeaderRow[]>(headerRows(entry?.headers));
  const [include, setInclude] = useState(entry?.include_in_metadata ?? true);
  const [comment, setComment] = useState(entry?.comment ?? '');
  const retry = useRetry(entry?.retry_conf);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const kept = entry as unknown as Record<string, unknown> | null;
  const [transform, setTransform] = useState<TransformForm>(() => readTransform(kept?.['request_transform'], kept?.['response_transform']));
  // null: the sample event of this trigger as the form says, until the sample is edited.
  const [sampleText, setSample] = useState<string | null>(null);
  const sample = sampleText ?? cronSample(name.trim() === '' ? 'cron' : name.trim(), payload, comment);
  const [status, run] = useAction();
  const save = () =>
    void run('Saving…', '', async () => {
      if (name.trim() === '') throw new Error('The cron trigger needs a name');
      const value = parsePayload(payload);
      const request = requestTransformOf(transform);
      const response = responseTransformOf(transform);
      await callMetadata('create_cron_trigger', {
        name: name.trim(),
        webhook: webhook.trim(),
        schedule: schedule.trim(),
        ...(value !== undefined ? { payload: value } : {}),
        headers: headerConfs(headers),
        retry_conf: retry.build(),
        include_in_metadata: include,
        ...(comment.trim() !== '' ? { comment: comment.trim() } : {}),
        ...(request !== undefined ? { request_transform: request } : {}),
        ...(response !== undefined ? { response_transform: response } : {}),
        ...(entry !== null ? { replace: true } : {}),
      });
      await Promise.all([refresh(), reload()]);
      onDone({ cron: name.trim() }, `Saved cron trigger ${name.trim()}`);
    });
  const remove = () =>
    void run('Deleting…', '', async () => {
      await callMetadata('delete_cron_trigger', { name: entry!.name });
      await Promise.all([refresh(), reload()]);
      onDone({ view: 'new-cron' }, `Deleted cron trigger ${entry!.name}`);
    });
  const quiet = status.kind === 'idle' || (status.kind === 'ok' && status.text === '');
  return (
    <form
      aria-label={entry === null ? 'New cron trigger' : `Modify cron trigger ${entry.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      {entry === null && <h1>New cron trigger</h1>}
      <div className="row">
        <label htmlFor="cron-name">Name</label>
        <input id="cron-name" value={name} disabled={entry !== null} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="row">
        <label htmlFor="cron-webhook">Webhook URL</label>
        <input
          id="cron-webhook"
          className="wide-input"
          placeholder="https://… or {{ENV_VAR}}/path"
          value={webhook}
          onChange={(e) => setWebhook(e.target.value)}
        />
      </div>
      <div className="row">
        <label htmlFor="cron-schedule">Cron schedule (UTC)</label>
        <input id="cron-schedule" placeholder="*/5 * * * *" value={schedule} onChange={(e) => setSchedule(e.target.value)} />
        {SCHEDULES.map(([title, expr]) => (
          <button key={expr} type="button" className="btn small" onClick={() => setSchedule(expr)}>
            {title}
          </button>
        ))}
      </div>
      <div className="field">
        <label htmlFor="cron-payload">Payload (JSON, optional)</label>
        <textarea id="cron-payload" rows={3} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
      </div>
      <HeadersEditor label="Webhook headers" rows={headers} onChange={setHeaders} />
      <details className="transforms" open={kept?.['request_transform'] !== undefined || kept?.['response_transform'] !== undefined}>
        <summary>Request and response transforms</summary>
        <TransformEditor
          idPrefix="cron-transform"
          value={transform}
          onChange={setTransform}
          webhookUrl={webhook.trim() === '' ? null : webhook.trim()}
          sample={sample}
          onSample={setSample}
        />
      </details>
      {retry.fields}
      <div className="row">
        <label>
          <input type="checkbox" checked={include} onChange={(e) => setInclude(e.target.checked)} /> Include in exported metadata
        </label>
        <label htmlFor="cron-comment">Comment</label>
        <input id="cron-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      <Status value={quiet && notice !== null ? { kind: 'ok', text: notice } : status} />
      <EditorButtons what="cron trigger" existing={entry?.name ?? null} confirming={confirmDelete} setConfirming={setConfirmDelete} onDelete={remove} />
    </form>
  );
}
