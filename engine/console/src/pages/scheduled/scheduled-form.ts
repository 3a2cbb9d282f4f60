/** What the cron trigger and one-off event forms share: their retry fields, and the payload read as JSON. */
import { useRetryFields } from '../../components.tsx';
import { type RetryConfSt } from '../../metadata-state.tsx';

/** Retry settings of a scheduled event or cron trigger (v2's RetryConfST). */
/** The retry fields of a scheduled event, in `retry_conf`'s terms. */
export function useRetry(initial: RetryConfSt | undefined) {
  const { build, fields } = useRetryFields('st', {
    retries: initial?.num_retries ?? 0,
    interval: initial?.retry_interval_seconds ?? 10,
    timeout: initial?.timeout_seconds ?? 60,
    tolerance: initial?.tolerance_seconds ?? 21600,
  });
  return {
    build: (): RetryConfSt => {
      const r = build();
      return { num_retries: r.retries, retry_interval_seconds: r.interval, timeout_seconds: r.timeout, tolerance_seconds: r.tolerance ?? 21600 };
    },
    fields,
  };
}

export function parsePayload(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error('The payload is not JSON');
  }
}
