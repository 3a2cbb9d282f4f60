/**
 * Every page of the console and its path, in one place: `#/<path>?<params>` (hash routing,
 * route.ts). The header's links and the page shown both come from this table; `params` lists the
 * query parameters each page reads, so a link into a page is written from here.
 */
import type { ReactNode } from 'react';
import { Actions } from './pages/actions/Actions.tsx';
import { ApiExplorer } from './pages/api-explorer/ApiExplorer.tsx';
import { Collections } from './pages/collections/Collections.tsx';
import { Data } from './pages/data/Data.tsx';
import { Events } from './pages/events/Events.tsx';
import { MetadataPage } from './pages/metadata/MetadataPage.tsx';
import { Permissions } from './pages/permissions/Permissions.tsx';
import { RemoteSchemas } from './pages/remote-schemas/RemoteSchemas.tsx';
import { Scheduled } from './pages/scheduled/Scheduled.tsx';

export interface PageRoute {
  /** The hash path: `#/data`. */
  readonly path: string;
  /** The header link's text and the page's accessible name. */
  readonly title: string;
  /** The query parameters the page reads (`#/data?source=default&table=public.authors`). */
  readonly params: readonly string[];
  readonly render: (params: URLSearchParams) => ReactNode;
}

export const ROUTES: readonly PageRoute[] = [
  { path: 'api', title: 'API explorer', params: [], render: () => <ApiExplorer /> },
  // view: sources (Manage sources, pages/sources/), sql; tab: a table's rows, relationships, …
  { path: 'data', title: 'Data', params: ['source', 'table', 'function', 'view', 'tab'], render: (p) => <Data params={p} /> },
  { path: 'permissions', title: 'Permissions', params: ['source', 'table'], render: (p) => <Permissions params={p} /> },
  // view: new, types (custom types), edit.
  { path: 'actions', title: 'Actions', params: ['action', 'view'], render: (p) => <Actions params={p} /> },
  { path: 'remote', title: 'Remote schemas', params: ['remote', 'tab'], render: (p) => <RemoteSchemas params={p} /> },
  // tab: modify, events, invocations.
  { path: 'events', title: 'Events', params: ['source', 'trigger', 'tab'], render: (p) => <Events params={p} /> },
  { path: 'scheduled', title: 'Scheduled', params: ['cron', 'view', 'tab'], render: (p) => <Scheduled params={p} /> },
  { path: 'collections', title: 'REST & allow-list', params: ['collection', 'view'], render: (p) => <Collections params={p} /> },
  { path: 'metadata', title: 'Metadata', params: [], render: () => <MetadataPage /> },
];

/** The route of a hash path; the API explorer for an unknown one. */
export function routeOf(path: string): PageRoute {
  return ROUTES.find((r) => r.path === path) ?? ROUTES[0]!;
}
