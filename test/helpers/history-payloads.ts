import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const { History } = temporal.api.history.v1;

function isPayload(value: unknown): value is Payload {
  const metadata = (value as { metadata?: Record<string, unknown> } | null)?.metadata;
  return typeof metadata === 'object' && metadata !== null && metadata.encoding instanceof Uint8Array;
}

function collectPayloads(value: unknown, found: Payload[]): Payload[] {
  if (isPayload(value)) found.push(value);
  else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const child of Object.values(value)) collectPayloads(child, found);
  }
  return found;
}

/** Every payload in a history (inputs, results, Update arguments, markers, user metadata, search attributes). */
export function historyPayloads(history: History): Payload[] {
  return collectPayloads(history.events ?? [], []);
}

/**
 * The history exactly as the server stores it, as bytes, less the search attributes: those are meant to be
 * readable (operators filter by OrderId), and the SDK never passes them through a codec.
 */
export function rawHistoryWithoutSearchAttributes(history: History): Buffer {
  const copy = History.decode(History.encode(history).finish());
  for (const event of copy.events) {
    for (const attributes of Object.values(event)) {
      if (attributes && typeof attributes === 'object' && 'searchAttributes' in attributes) {
        (attributes as { searchAttributes: unknown }).searchAttributes = null;
      }
    }
  }
  return Buffer.from(History.encode(copy).finish());
}

/** The text of every payload of the history after decoding with `codec`: what an operator with the key sees. */
export async function decodedHistoryText(history: History, codec: PayloadCodec): Promise<string> {
  const decoded = await codec.decode(historyPayloads(history));
  return decoded.map((payload) => Buffer.from(payload.data ?? []).toString('utf8')).join('\n');
}

export const encodingOf = (payload: Payload) =>
  Buffer.from(payload.metadata?.encoding ?? []).toString('utf8');
