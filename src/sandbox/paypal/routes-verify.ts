import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { verifyTransmission } from '../../providers/paypal/webhook-signature';
import { invalidRequest, malformedRequestJson, parseRequest, resourceNotFound } from '../errors';
import { RawJsonError, rawMemberValue } from '../raw-json';
import { answer } from '../replies';
import { CERTIFICATE_PATH } from './certificate';
import type { PaypalContext } from './context';

const verifyRequestSchema = z.object({
  auth_algo: z.string().min(1),
  cert_url: z.string().min(1),
  transmission_id: z.string().min(1),
  transmission_sig: z.string().min(1),
  transmission_time: z.string().min(1),
  webhook_id: z.string().min(1),
});

/** The exact text of `webhook_event` in the raw body: the signature covers those bytes, not a re-serialization. */
function rawWebhookEvent(raw: string): string {
  let event: string | undefined;
  try {
    event = rawMemberValue(raw, 'webhook_event');
  } catch (error) {
    throw malformedRequestJson(
      error instanceof RawJsonError ? error.message : 'The request body is not JSON.',
    );
  }
  if (event === undefined) {
    throw invalidRequest([
      {
        field: '/webhook_event',
        location: 'body',
        issue: 'MISSING_REQUIRED_PARAMETER',
        description: 'Required',
      },
    ]);
  }
  return event;
}

/**
 * POST /v1/notifications/verify-webhook-signature. Its body is kept as the raw string: this
 * route's scope replaces the JSON parser, so `webhook_event` can be checked byte for byte.
 */
export function registerVerifyRoute(app: FastifyInstance, context: PaypalContext): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );

  app.post('/v1/notifications/verify-webhook-signature', async (request, reply) => {
    const raw = typeof request.body === 'string' ? request.body : '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw malformedRequestJson('The request body is not JSON.');
    }
    const fields = parseRequest(verifyRequestSchema, parsed);
    const webhookEvent = rawWebhookEvent(raw);
    return answer(reply, context.faults, 'verify', () => {
      const certificatePem = certificateFor(fields.cert_url, context);
      const verified =
        certificatePem !== undefined &&
        verifyTransmission({
          authAlgo: fields.auth_algo,
          transmissionId: fields.transmission_id,
          transmissionTime: fields.transmission_time,
          transmissionSig: fields.transmission_sig,
          webhookId: fields.webhook_id,
          body: webhookEvent,
          certificatePem,
          now: context.now(),
        });
      context.log.debug(
        { webhookId: fields.webhook_id, transmissionId: fields.transmission_id, verified },
        'verify',
      );
      return { statusCode: 200, body: { verification_status: verified ? 'SUCCESS' : 'FAILURE' } };
    });
  });
}

/** Only this sandbox's own certificate counts, whatever host the URL names: a caller cannot bring its own. */
function certificateFor(certUrl: string, context: PaypalContext): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(certUrl).pathname;
  } catch {
    return undefined;
  }
  const id = pathname.startsWith(CERTIFICATE_PATH) ? pathname.slice(CERTIFICATE_PATH.length) : undefined;
  return id === context.certificate.id ? context.certificate.certificatePem : undefined;
}

/** GET /v1/notifications/certs/:id: the PEM certificate named by SERVICE-CERT-URL; no authentication. */
export function registerCertificateRoute(app: FastifyInstance, context: PaypalContext): void {
  app.get(`${CERTIFICATE_PATH}:id`, async (request, reply) => {
    const { id } = request.params as { id: string };
    if (id !== context.certificate.id)
      throw resourceNotFound(`Specified resource ID does not exist: certificate ${id}.`);
    return reply.type('application/x-pem-file').send(context.certificate.certificatePem);
  });
}
