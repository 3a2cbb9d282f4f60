/**
 * Event triggers, per source: the list, an editor (table, operations, the
 * columns an update must touch, manual invocation, webhook or its
 * environment variable, retries, headers), delete, and per trigger its event
 * log (pending / processed, redeliver) and invocation log
 * (`pg_get_event_logs`, `pg_get_event_invocation_logs`, `pg_redeliver_event`)
 * and a manual invocation (`pg_invoke_event_trigger`).
 */
import { useState } from 'react';
import { tableKey, useMetadata, type SourceEntry } from '../../metadata-state.tsx';
import { navigate } from '../../route.ts';
import { NavList, SourcePicker, Tabs } from '../../lists.tsx';
import { TriggerEditor, type Located } from './TriggerEditor.tsx';
import { EventLog } from './EventLog.tsx';
import { InvocationLog } from './InvocationLog.tsx';

function triggersOf(source: SourceEntry | undefined): Located[] {
  return (source?.tables ?? [])
    .flatMap((t) => (t.event_triggers ?? []).map((trigger) => ({ table: t.table, trigger })))
    .sort((a, b) => a.trigger.name.localeCompare(b.trigger.name));
}

function link(params: Record<string, string>): string {
  return `#/events?${new URLSearchParams(params).toString()}`;
}

export function Events({ params }: { params: URLSearchParams }) {
  const { metadata, inconsistencies } = useMetadata();
  const sources = metadata?.sources ?? [];
  const source = params.get('source') ?? sources[0]?.name ?? 'default';
  const sourceEntry = sources.find((s) => s.name === source);
  const name = params.get('trigger');
  const tab = params.get('tab') ?? 'modify';
  const triggers = triggersOf(sourceEntry);
  const found = triggers.find((t) => t.trigger.name === name);
  const [notice, setNotice] = useState<{ at: string; text: string } | null>(null);
  const here = `${name ?? ''}:${tab}`;
  const done = (to: Record<string, string>, text: string) => {
    setNotice({ at: `${to['trigger'] ?? ''}:${to['tab'] ?? 'modify'}`, text });
    navigate('events', { source, ...to });
  };
  return (
    <div className="split">
      <nav className="sidebar" aria-label="Event triggers navigation">
        <SourcePicker id="events-source" sources={sources} value={source} onPick={(s) => navigate('events', { source: s })} />
        <NavList items={[{ key: 'New event trigger', href: link({ source }), current: name === null }]} />
        <h2>Event triggers</h2>
        <NavList
          label="Event triggers"
          empty={`No event triggers in ${source}.`}
          items={triggers.map((t) => ({
            key: t.trigger.name,
            href: link({ source, trigger: t.trigger.name }),
            current: name === t.trigger.name,
            problems: inconsistencies.filter((p) => p.type === 'event_trigger' && p.source === source && p.name === t.trigger.name),
            content: (
              <>
                {t.trigger.name} <span className="muted">on {tableKey(t.table)}</span>
              </>
            ),
          }))}
        />
      </nav>
      <div className="content">
        {metadata === null || sourceEntry === undefined ? null : name === null ? (
          <TriggerEditor key={`${source}/(new)`} source={sourceEntry} located={null} notice={notice?.at === here ? notice.text : null} onDone={done} />
        ) : found === undefined ? (
          <p role="alert" className="error">
            There is no event trigger {name} in {source}.
          </p>
        ) : (
          <>
            <h1>
              Event trigger {found.trigger.name} <span className="muted">on {tableKey(found.table)}</span>
            </h1>
            <Tabs
              label="Event trigger views"
              tabs={[
                ['modify', 'Modify'],
                ['events', 'Events'],
                ['invocations', 'Invocations'],
              ]}
              current={tab}
              href={(id) => link({ source, trigger: found.trigger.name, tab: id })}
            />
            {tab === 'modify' && (
              <TriggerEditor
                key={`${source}/${found.trigger.name}`}
                source={sourceEntry}
                located={found}
                notice={notice?.at === here ? notice.text : null}
                onDone={done}
              />
            )}
            {tab === 'events' && <EventLog key={found.trigger.name} source={source} trigger={found.trigger} />}
            {tab === 'invocations' && <InvocationLog key={found.trigger.name} source={source} trigger={found.trigger.name} />}
          </>
        )}
      </div>
    </div>
  );
}
