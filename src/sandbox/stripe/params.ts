import type { FastifyRequest } from 'fastify';
import { invalidRequest } from './errors';

// Reading Stripe's form-encoded parameters as its endpoints do: an unknown one, or a value of the wrong kind,
// is a 400 invalid_request_error naming the parameter.

export type Params = Record<string, unknown>;

/** Stripe refuses a parameter it does not know for the endpoint. */
export function allowOnly(params: Params, allowed: readonly string[]): void {
  for (const name of Object.keys(params)) {
    if (!allowed.includes(name)) {
      throw invalidRequest(`Received unknown parameter: ${name}`, 'parameter_unknown', name);
    }
  }
}

export function integer(params: Params, name: string): number | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) {
    throw invalidRequest(`Invalid integer: ${JSON.stringify(value)}`, 'parameter_invalid_integer', name);
  }
  return Number(value);
}

/** A parameter Stripe requires: missing, it is `parameter_missing`, naming it. */
export function requiredInteger(params: Params, name: string): number {
  const value = integer(params, name);
  if (value === undefined)
    throw invalidRequest(`Missing required param: ${name}.`, 'parameter_missing', name);
  return value;
}

export function boolean(params: Params, name: string): boolean | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') {
    throw invalidRequest(`Invalid boolean: ${JSON.stringify(value)}`, 'parameter_invalid_boolean', name);
  }
  return value === 'true';
}

/** Stripe refuses a value outside a parameter's enumeration, naming the parameter and the values it takes. */
export function enumerated<Value extends string>(
  params: Params,
  name: string,
  allowed: readonly Value[],
  value: unknown = params[name],
): Value | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as Value;
  const listed = `${allowed.slice(0, -1).join(', ')}, or ${allowed[allowed.length - 1]}`;
  throw invalidRequest(`Invalid ${name}: must be one of ${listed}`, 'parameter_invalid_string', name);
}

export function metadata(params: Params): Record<string, string> {
  const value = params.metadata;
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest('Invalid metadata: must be an object', 'parameter_invalid_empty', 'metadata');
  }
  return value as Record<string, string>;
}

export function expandsCharge(params: Params): boolean {
  const expand = params.expand;
  return Array.isArray(expand) && expand.includes('latest_charge');
}

export function idempotencyKey(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function paramsOf(request: FastifyRequest): Params {
  return (request.body as Params | undefined) ?? {};
}
