import { EMPTY_DELIVERY_BODY_MESSAGE } from '../providers/webhook-delivery';
import { ApiError } from './errors';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, exactly: valid UTF-8 (so the text round-trips to the same bytes) holding one JSON document. */
export function deliveryText(raw: unknown): string {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  if (bytes.length === 0) throw new ApiError('WEBHOOK_DELIVERY_INVALID', EMPTY_DELIVERY_BODY_MESSAGE);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', 'the delivery body is not UTF-8 text');
  }
  try {
    JSON.parse(text);
  } catch {
    throw new ApiError('WEBHOOK_DELIVERY_INVALID', 'the delivery body is not well-formed JSON');
  }
  return text;
}
