import { z } from 'zod';

// PayPal links a resource to its parent by an `up` link: a capture to its authorization, a refund to its
// capture. A capture may also name its authorization in supplementary_data.related_ids.

export const linksSchema = z.array(z.looseObject({ href: z.string(), rel: z.string() })).optional();

const upLinkPatterns = {
  authorizations: /\/authorizations\/([^/?#]+)\/?(?:[?#].*)?$/,
  captures: /\/captures\/([^/?#]+)\/?(?:[?#].*)?$/,
};

/**
 * The id at the end of a resource's `up` link when it names a `kind`: …/v2/payments/authorizations/<id> for
 * a capture, …/v2/payments/captures/<id> for a refund.
 */
export function upLinkId(links: unknown, kind: keyof typeof upLinkPatterns): string | undefined {
  const parsed = linksSchema.safeParse(links);
  const up = parsed.success ? parsed.data?.find((link) => link.rel === 'up')?.href : undefined;
  const match = up ? upLinkPatterns[kind].exec(up) : null;
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

const relatedAuthorizationSchema = z.looseObject({
  supplementary_data: z
    .looseObject({
      related_ids: z.looseObject({ authorization_id: z.string().min(1).optional() }).optional(),
    })
    .optional(),
});

/** The authorization a capture resource took its money from: related_ids, else its `up` link. */
export function capturedAuthorizationId(capture: { links?: unknown }): string | undefined {
  const related = relatedAuthorizationSchema.safeParse(capture);
  const named = related.success ? related.data.supplementary_data?.related_ids?.authorization_id : undefined;
  return named ?? upLinkId(capture.links, 'authorizations');
}
