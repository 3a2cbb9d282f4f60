/**
 * Kubernetes Events (events.k8s.io/v1) about custom objects, so `kubectl describe` shows what the
 * controller did. `regarding` carries the object's uid, which is how describe finds events.
 * Only transitions are recorded (the caller decides); repeats are not re-emitted.
 */
import { randomBytes } from 'node:crypto';
import { collectionPath, microTime, type KubeApi } from './kube-api.ts';

/** The object an event is about. */
export interface EventSubject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid: string; readonly resourceVersion?: string };
}

/** One event to record. */
export interface EventRecord {
  readonly type: 'Normal' | 'Warning';
  /** CamelCase reason (Applied, InconsistentMetadata...). */
  readonly reason: string;
  /** What the controller did (Apply, Delete...). */
  readonly action: string;
  readonly note: string;
}

/** Records events as one reporting controller instance. */
export class EventRecorder {
  readonly #api: KubeApi;
  readonly #controller: string;
  readonly #instance: string;

  constructor(api: KubeApi, reportingController: string, reportingInstance: string) {
    this.#api = api;
    this.#controller = reportingController;
    this.#instance = reportingInstance;
  }

  /** Creates the event; failures are returned, not thrown (events are best effort). */
  async record(subject: EventSubject, e: EventRecord): Promise<Error | null> {
    const ns = subject.metadata.namespace;
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${subject.metadata.name}.${Date.now().toString(16)}${randomBytes(3).toString('hex')}`, namespace: ns },
      eventTime: microTime(new Date()),
      reportingController: this.#controller,
      reportingInstance: this.#instance.slice(0, 128),
      action: e.action,
      reason: e.reason,
      note: e.note.slice(0, 1024),
      type: e.type,
      regarding: {
        apiVersion: subject.apiVersion,
        kind: subject.kind,
        name: subject.metadata.name,
        namespace: ns,
        uid: subject.metadata.uid,
        resourceVersion: subject.metadata.resourceVersion,
      },
    };
    try {
      await this.#api.request('POST', collectionPath('events.k8s.io/v1', 'events', ns), body);
      return null;
    } catch (err) {
      return err as Error;
    }
  }
}
