import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { LifecycleState } from './lifecycle/definitions';

// Custom search attributes operators filter on in the Temporal Web UI. The dev server registers them from
// this list at start; the admin step of docker-compose.yml registers the same names.
export const AuthorizationIdKey = defineSearchAttributeKey('AuthorizationId', SearchAttributeType.KEYWORD);
export const OrderIdKey = defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD);
/** Every authorization id a lifecycle has held (the original and its reauthorizations): routes their events. */
export const AuthorizationIdsKey = defineSearchAttributeKey(
  'AuthorizationIds',
  SearchAttributeType.KEYWORD_LIST,
);
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD);
export const WebhookVerificationKey = defineSearchAttributeKey(
  'WebhookVerification',
  SearchAttributeType.KEYWORD,
);
/** DELIVERED or UNROUTED: whether a verified event reached a running lifecycle. */
export const PaymentEventRoutingKey = defineSearchAttributeKey(
  'PaymentEventRouting',
  SearchAttributeType.KEYWORD,
);

/** Why the last timer reauthorization failed for good (the provider's issue, or TIMEOUT); unset when none did. */
export const ReauthorizationFailureKey = defineSearchAttributeKey(
  'ReauthorizationFailure',
  SearchAttributeType.KEYWORD,
);

/**
 * How many differences with its provider a lifecycle's ledger has recorded (ledger.discrepancies): unset
 * while none; operators filter `LedgerDiscrepancies > 0`.
 */
export const LedgerDiscrepanciesKey = defineSearchAttributeKey(
  'LedgerDiscrepancies',
  SearchAttributeType.INT,
);

/**
 * When the open lifecycle's current hold ends (the provider's expiration time; the expiry policy's time when
 * the provider gives none), and what the lifecycle does before it: `reauthorize`, `void` or `expire` (let it
 * end). Unset once the lifecycle has ended: operators list the holds ending soon with `HoldEndsAt < "<time>"`.
 */
export const HoldEndsAtKey = defineSearchAttributeKey('HoldEndsAt', SearchAttributeType.DATETIME);
export const HoldEndActionKey = defineSearchAttributeKey('HoldEndAction', SearchAttributeType.KEYWORD);

/** The provider a lifecycle runs on (paypal, stripe): set with the start, by the client, not by the workflow. */
export const PaymentProviderKey = defineSearchAttributeKey('PaymentProvider', SearchAttributeType.KEYWORD);

export const customSearchAttributes = [
  AuthorizationIdKey,
  AuthorizationIdsKey,
  OrderIdKey,
  PaymentStatusKey,
  WebhookVerificationKey,
  PaymentEventRoutingKey,
  ReauthorizationFailureKey,
  PaymentProviderKey,
  LedgerDiscrepanciesKey,
  HoldEndsAtKey,
  HoldEndActionKey,
];

/**
 * What a lifecycle shows from its start, set by the client with it: its provider, its identity and the status
 * it starts in (a reopened run's, the state it carries), so that the run upserts only what differs (a partly
 * captured authorization, a reauthorization failure).
 */
export function lifecycleStartAttributes(start: {
  authorizationId: string;
  orderId?: string;
  provider: string;
  carriedState?: Pick<LifecycleState, 'status' | 'reauthorizations'>;
}): SearchAttributePair[] {
  const reauthorized = start.carriedState?.reauthorizations.map((record) => record.toAuthorizationId) ?? [];
  return [
    { key: PaymentProviderKey, value: start.provider },
    { key: AuthorizationIdKey, value: start.authorizationId },
    { key: AuthorizationIdsKey, value: [start.authorizationId, ...reauthorized] },
    ...(start.orderId ? [{ key: OrderIdKey, value: start.orderId }] : []),
    { key: PaymentStatusKey, value: start.carriedState?.status ?? 'AUTHORIZED' },
  ];
}
