import type { temporal } from '@temporalio/proto';

/** When a history event happened, in milliseconds since the epoch (its seconds are a Long or a number). */
export function eventTimeMs(event: temporal.api.history.v1.IHistoryEvent): number {
  const { seconds, nanos } = event.eventTime ?? {};
  return Number(String(seconds ?? 0)) * 1000 + Math.floor((nanos ?? 0) / 1e6);
}
