/**
 * Cron triggers and one-off scheduled events: the cron triggers
 * (`get_cron_triggers`, so those kept out of exported metadata too), an editor
 * (`create_cron_trigger`, with `replace` when modifying), delete, and per
 * trigger its events and invocations; one-off events: schedule one
 * (`create_scheduled_event`), list them by status, delete one, and each one's
 * invocations (`get_scheduled_events`, `get_scheduled_event_invocations`).
 */
import { useCallback, useEffect, useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { useMetadata, type CronTriggerEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { NavList, Tabs } from '../../lists.tsx';
import { CronEditor } from './CronEditor.tsx';
import { InvocationList } from './InvocationList.tsx';
import { OneOffEvents } from './OneOffEvents.tsx';
import { ScheduledEventList } from './ScheduledEventList.tsx';

function link(params: Record<string, string>): string {
  return `#/scheduled?${new URLSearchParams(params).toString()}`;
}

export function Scheduled({ params }: { params: URLSearchParams }) {
  const { metadata } = useMetadata();
  const [crons, setCrons] = useState<CronTriggerEntry[] | null>(null);
  const loadCrons = useCallback(async () => {
    const r = await callMetadata<{ cron_triggers: CronTriggerEntry[] }>('get_cron_triggers', {});
    setCrons([...r.cron_triggers].sort((a, b) => a.name.localeCompare(b.name)));
  }, []);
  // The list follows the metadata (another tab or the API may change it).
  useEffect(() => {
    void loadCrons();
  }, [loadCrons, metadata]);
  const name = params.get('cron');
  const view = params.get('view') ?? (name !== null ? 'cron' : 'new-cron');
  const tab = params.get('tab') ?? 'modify';
  const found = crons?.find((c) => c.name === name);
  const [notice, setNotice] = useState<{ at: string; text: string } | null>(null);
  const here = `${view}:${name ?? ''}:${tab}`;
  const done = (to: Record<string, string>, text: string) => {
    setNotice({ at: `${to['view'] ?? (to['cron'] !== undefined ? 'cron' : 'new-cron')}:${to['cron'] ?? ''}:${to['tab'] ?? 'modify'}`, text });
    navigate('scheduled', to);
  };
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Scheduled triggers navigation">
        <NavList
          items={[
            { key: 'One-off events', href: link({ view: 'one-off' }), current: view === 'one-off' },
            { key: 'New cron trigger', href: link({ view: 'new-cron' }), current: view === 'new-cron' },
          ]}
        />
        <h2>Cron triggers</h2>
        <NavList
          label="Cron triggers"
          // Until the list is read, an empty list rather than "none".
          {...(crons === null ? {} : { empty: 'No cron triggers.' })}
          items={(crons ?? []).map((c) => ({
            key: c.name,
            href: link({ cron: c.name }),
            current: name === c.name,
            content: (
              <>
                {c.name} <span className="muted">{c.schedule}</span>
              </>
            ),
          }))}
        />
      </nav>
      <div className="content">
        {view === 'one-off' ? (
          <OneOffEvents />
        ) : view === 'new-cron' ? (
          <CronEditor key="(new)" entry={null} notice={notice?.at === here ? notice.text : null} onDone={done} reload={loadCrons} />
        ) : crons === null ? null : found === undefined ? (
          <p role="alert" className="error">
            There is no cron trigger {name}.
          </p>
        ) : (
          <>
            <h1>
              Cron trigger {found.name} <span className="muted">{found.schedule}</span>
            </h1>
            <Tabs
              label="Cron trigger views"
              tabs={[
                ['modify', 'Modify'],
                ['events', 'Events'],
                ['invocations', 'Invocations'],
              ]}
              current={tab}
              href={(id) => link({ cron: found.name, tab: id })}
            />
            {tab === 'modify' && (
              <CronEditor key={found.name} entry={found} notice={notice?.at === here ? notice.text : null} onDone={done} reload={loadCrons} />
            )}
            {tab === 'events' && <ScheduledEventList key={found.name} kind="cron" trigger={found.name} />}
            {tab === 'invocations' && <InvocationList key={found.name} kind="cron" trigger={found.name} eventId={null} />}
          </>
        )}
      </div>
    </div>
  );
}
