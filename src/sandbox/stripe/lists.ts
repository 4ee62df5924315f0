import { invalidRequest } from './errors';
import { integer, type Params } from './params';

// Stripe's list endpoints: newest first, a page of `limit` (1 to 100, default 10) after `starting_after` or
// before `ending_before`, `has_more` when the list goes on past the page in that direction, and a `created`
// filter that is a Unix time or a range (`created[gt]`, `[gte]`, `[lt]`, `[lte]`).

const rangeBounds = ['gt', 'gte', 'lt', 'lte'] as const;

export function listLimit(params: Params): number {
  const limit = integer(params, 'limit') ?? 10;
  if (limit < 1 || limit > 100) {
    throw invalidRequest('Invalid limit: must be between 1 and 100', 'parameter_invalid_integer', 'limit');
  }
  return limit;
}

/** Whether a `created` time (Unix seconds) passes the request's `created` filter. */
export function createdFilter(params: Params): (created: number) => boolean {
  const value = params.created;
  if (value === undefined) return () => true;
  if (typeof value === 'string') {
    const exactly = integer(params, 'created') as number;
    return (created) => created === exactly;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest(
      'Invalid created: must be an integer or a range',
      'parameter_invalid_integer',
      'created',
    );
  }
  const range = value as Params;
  for (const name of Object.keys(range)) {
    if (!(rangeBounds as readonly string[]).includes(name)) {
      throw invalidRequest(
        `Received unknown parameter: created[${name}]`,
        'parameter_unknown',
        `created[${name}]`,
      );
    }
  }
  const [gt, gte, lt, lte] = rangeBounds.map((name) =>
    integer({ [`created[${name}]`]: range[name] }, `created[${name}]`),
  );
  return (created) =>
    (gt === undefined || created > gt) &&
    (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) &&
    (lte === undefined || created <= lte);
}

/**
 * One page of `all` (newest first) as Stripe answers a list: the request's cursor must name an object of the
 * list's kind (`known` throws Stripe's resource_missing otherwise).
 */
export function listPage<T extends { id: string }>(
  all: readonly T[],
  params: Params,
  known: (id: string, param: string) => void,
): { data: T[]; has_more: boolean } {
  const limit = listLimit(params);
  const after = typeof params.starting_after === 'string' ? params.starting_after : undefined;
  const before = typeof params.ending_before === 'string' ? params.ending_before : undefined;
  if (after !== undefined && before !== undefined) {
    throw invalidRequest(
      'You may only specify one of these parameters: ending_before, starting_after.',
      'parameter_invalid_empty',
    );
  }
  if (after !== undefined) known(after, 'starting_after');
  if (before !== undefined) {
    known(before, 'ending_before');
    const end = Math.max(
      all.findIndex((each) => each.id === before),
      0,
    );
    const from = Math.max(end - limit, 0);
    return { data: all.slice(from, end), has_more: from > 0 };
  }
  const from = after === undefined ? 0 : all.findIndex((each) => each.id === after) + 1;
  return { data: all.slice(from, from + limit), has_more: from + limit < all.length };
}

/** Whether the request expands `field` of each listed object (`expand[]=data.field`). */
export function expandsListed(params: Params, field: string): boolean {
  const expand = params.expand;
  return Array.isArray(expand) && expand.includes(`data.${field}`);
}
