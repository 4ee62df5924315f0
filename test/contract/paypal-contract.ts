import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import paymentsSchema from './paypal-payments-v2.schema.json';
import webhooksSchema from './paypal-webhooks-v1.schema.json';

// PayPal's published Payments v2 and Webhooks v1 contracts, as JSON Schemas derived into this folder, and
// which schema each request and answer of an operation must satisfy.

const ajv = new Ajv({ allErrors: true });
addFormats(ajv);
ajv.addSchema(paymentsSchema).addSchema(webhooksSchema);

/** A definition of one of the two documents, e.g. `payments#authorization-2`. */
export type SchemaName = `${'payments' | 'webhooks'}#${string}`;

const validators = new Map<SchemaName, ValidateFunction>();

function validator(name: SchemaName): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    const [document, definition] = name.split('#') as [string, string];
    validate = ajv.getSchema(
      `paypal-${document === 'payments' ? 'payments-v2' : 'webhooks-v1'}#/definitions/${definition}`,
    );
    if (!validate) throw new Error(`no schema ${name}`);
    validators.set(name, validate);
  }
  return validate;
}

/** The schema's complaints about `value`, one line each; none when it is valid. */
export function violations(name: SchemaName, value: unknown): string[] {
  const validate = validator(name);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (error) => `${name} ${error.instancePath || '/'} ${error.message ?? ''}`,
  );
}

interface Operation {
  method: string;
  path: RegExp;
  request?: SchemaName;
  /** By status; null: no body. */
  responses: Record<number, SchemaName | null>;
  /** Errors whose issues the document lists for this operation alone, by status. */
  errors?: Record<number, SchemaName>;
}

const authorization = /^\/v2\/payments\/authorizations\/[^/]+/;
const paymentErrors: Record<number, SchemaName> = {
  400: 'payments#error_400',
  401: 'payments#error_401',
  403: 'payments#error_403',
  404: 'payments#error_404',
  409: 'payments#error_409',
  415: 'payments#error_415',
  422: 'payments#error_422',
  500: 'payments#error_500',
  503: 'payments#error_503',
};

export const operations: Operation[] = [
  {
    method: 'GET',
    path: new RegExp(`${authorization.source}$`),
    responses: { 200: 'payments#authorization-2' },
  },
  {
    method: 'POST',
    path: new RegExp(`${authorization.source}/capture$`),
    request: 'payments#capture_request',
    responses: { 201: 'payments#capture-2' },
  },
  {
    method: 'POST',
    path: new RegExp(`${authorization.source}/reauthorize$`),
    request: 'payments#reauthorize_request',
    responses: { 201: 'payments#authorization-2' },
  },
  {
    method: 'POST',
    path: new RegExp(`${authorization.source}/void$`),
    responses: { 200: 'payments#authorization-2', 204: null },
  },
  { method: 'GET', path: /^\/v2\/payments\/captures\/[^/]+$/, responses: { 200: 'payments#capture-2' } },
  {
    method: 'POST',
    path: /^\/v2\/payments\/captures\/[^/]+\/refund$/,
    request: 'payments#refund_request',
    responses: { 201: 'payments#refund' },
    errors: { 400: 'payments#captures.refund-400', 422: 'payments#captures.refund-422' },
  },
  { method: 'GET', path: /^\/v2\/payments\/refunds\/[^/]+$/, responses: { 200: 'payments#refund' } },
  {
    method: 'POST',
    path: /^\/v1\/notifications\/webhooks$/,
    request: 'webhooks#webhook',
    responses: { 201: 'webhooks#webhook' },
  },
  { method: 'GET', path: /^\/v1\/notifications\/webhooks$/, responses: { 200: 'webhooks#WebhookList' } },
  { method: 'GET', path: /^\/v1\/notifications\/webhooks\/[^/]+$/, responses: { 200: 'webhooks#webhook' } },
  {
    method: 'PATCH',
    path: /^\/v1\/notifications\/webhooks\/[^/]+$/,
    request: 'webhooks#patch_request',
    responses: { 200: 'webhooks#webhook' },
  },
  { method: 'DELETE', path: /^\/v1\/notifications\/webhooks\/[^/]+$/, responses: { 204: null } },
  {
    method: 'GET',
    path: /^\/v1\/notifications\/webhooks-event-types$/,
    responses: { 200: 'webhooks#EventTypeList' },
  },
  {
    method: 'POST',
    path: /^\/v1\/notifications\/verify-webhook-signature$/,
    request: 'webhooks#verify_webhook_signature',
    responses: { 200: 'webhooks#verify_webhook_signature_response' },
  },
];

/** The operation of a request, or undefined for one outside the two documents (the token endpoint). */
export function operationOf(method: string, path: string): Operation | undefined {
  return operations.find((operation) => operation.method === method && operation.path.test(path));
}

/** The schema an answer of `operation` with `status` must satisfy; null: no body; undefined: none known. */
export function responseSchema(operation: Operation, status: number): SchemaName | null | undefined {
  if (status in operation.responses) return operation.responses[status];
  if (status < 400) return undefined;
  if (operation.errors && status in operation.errors) return operation.errors[status];
  return operation.path.source.includes('payments') ? paymentErrors[status] : 'webhooks#error';
}

/** Which schema a webhook event's resource must satisfy, by its resource type. */
export const eventResources: Record<string, SchemaName> = {
  authorization: 'payments#authorization-2',
  capture: 'payments#capture-2',
  refund: 'payments#refund',
};
