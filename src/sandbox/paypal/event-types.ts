import { invalidRequest } from '../errors';
import { allEventTypes, type EventTypeList } from '../webhooks';

/**
 * The event types a webhook can subscribe to: every Payments v2 authorization and capture event PayPal
 * lists, whether or not the sandbox emits it yet.
 */
export const webhookEventTypes = [
  {
    name: 'PAYMENT.AUTHORIZATION.CREATED',
    description:
      'A payment authorization is created, approved, executed, or a future payment authorization is created.',
  },
  { name: 'PAYMENT.AUTHORIZATION.VOIDED', description: 'A payment authorization is voided.' },
  { name: 'PAYMENT.CAPTURE.COMPLETED', description: 'A payment capture completes.' },
  { name: 'PAYMENT.CAPTURE.DECLINED', description: 'A payment capture is declined.' },
  { name: 'PAYMENT.CAPTURE.DENIED', description: 'A payment capture is denied.' },
  { name: 'PAYMENT.CAPTURE.PENDING', description: 'The state of a payment capture changes to pending.' },
  { name: 'PAYMENT.CAPTURE.REFUNDED', description: 'A merchant refunds a payment capture.' },
  { name: 'PAYMENT.CAPTURE.REVERSED', description: 'PayPal reverses a payment capture.' },
] as const;

export function isKnownEventType(name: string): boolean {
  return name === allEventTypes || webhookEventTypes.some((type) => type.name === name);
}

export function eventTypeDescription(name: string): string {
  if (name === allEventTypes) return 'ALL';
  return webhookEventTypes.find((type) => type.name === name)?.description ?? name;
}

export function eventTypesResponse() {
  return {
    event_types: webhookEventTypes.map((type) => ({
      ...type,
      status: 'ENABLED',
      resource_versions: ['2.0'],
    })),
  };
}

/** Event type names must be ones the sandbox knows, or `*`. */
export function eventTypeNames(list: EventTypeList, field: string): string[] {
  const unknown = list.findIndex(({ name }) => !isKnownEventType(name));
  if (unknown >= 0) {
    throw invalidRequest([
      {
        field: `${field}/${unknown}/name`,
        location: 'body',
        issue: 'INVALID_EVENT_TYPE',
        description: `Unknown event type ${list[unknown]?.name}; see GET /v1/notifications/webhooks-event-types.`,
      },
    ]);
  }
  return list.map(({ name }) => name);
}
