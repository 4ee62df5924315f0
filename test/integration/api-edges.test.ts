import { randomUUID } from 'node:crypto';
import { API_KEY, useLifecycleStack } from '../helpers/lifecycle-stack';
import { rawRequest } from '../helpers/raw-http';

// What callers send at the edges of the HTTP API, byte for byte: every bad input is a 4xx naming the problem.

const stack = useLifecycleStack();
const apiUrl = () => stack.api.defaults.baseURL as string;

const auth = { Authorization: `Bearer ${API_KEY}` };

/** What `curl -X POST <url> -H 'authorization: …'` sends: no body, no Content-Length, no Content-Type. */
function postNothing(path: string, headers: Record<string, string> = {}) {
  return rawRequest(`${apiUrl()}${path}`, { method: 'POST', headers: { ...auth, ...headers } });
}

describe('commands sent without a body', () => {
  it('voids with no body and no content type, as curl -X POST sends it', async () => {
    const authorizationId = await stack.startLifecycle('15.00');
    const response = await postNothing(`/v1/lifecycles/${authorizationId}/void`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toMatchObject({ id: authorizationId, status: 'VOIDED' });
  });

  it('captures the rest with no body and no content type', async () => {
    const authorizationId = await stack.startLifecycle('42.00');
    const response = await postNothing(`/v1/lifecycles/${authorizationId}/capture`, {
      'idempotency-key': randomUUID(),
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toMatchObject({ status: 'COMPLETED', amount: { value: '42.00' } });
  });

  it('reauthorizes with an empty body and no content type, as fetch sends it', async () => {
    const authorizationId = await stack.startLifecycle('30.00');
    const response = await fetch(`${apiUrl()}/v1/lifecycles/${authorizationId}/reauthorize`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': randomUUID() },
    });
    expect(response.status).toBe(200);
    const reauthorization = (await response.json()) as { id: string; amount: { value: string } };
    expect(reauthorization.id).not.toBe(authorizationId);
    expect(reauthorization.amount.value).toBe('30.00');
  });

  it('refuses a start with no body as a 400 that says a JSON object is needed', async () => {
    const response = await postNothing('/v1/lifecycles');
    expect(response.status).toBe(400);
    const { error } = JSON.parse(response.text);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/^body: a JSON object is required/);
  });
});

describe('bodies that are not JSON', () => {
  it.each([
    [
      'a form',
      'application/x-www-form-urlencoded',
      'authorizationId=A1',
      /"application\/x-www-form-urlencoded"/,
    ],
    ['XML', 'application/xml', '<authorizationId>A1</authorizationId>', /"application\/xml"/],
    ['plain text', 'text/plain', '{"authorizationId":"A1"}', /"text\/plain"/],
    ['no content type', undefined, '{"authorizationId":"A1"}', /without a Content-Type/],
  ])('refuses a start sent as %s with 415 naming what was sent and what is accepted', async (...args) => {
    const [, type, body, names] = args;
    const response = await rawRequest(`${apiUrl()}/v1/lifecycles`, {
      method: 'POST',
      headers: { ...auth, ...(type && { 'Content-Type': type }), 'Content-Length': String(body.length) },
      body,
    });
    expect(response.status).toBe(415);
    const { error } = JSON.parse(response.text);
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.message).toMatch(names);
    expect(error.message).toMatch(/application\/json/);
  });

  it.each(['capture', 'void', 'reauthorize'])('refuses a form body on %s with 415', async (command) => {
    const authorizationId = await stack.startLifecycle('10.00');
    const response = await stack.api.post(`/v1/lifecycles/${authorizationId}/${command}`, 'amount=1.00', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.data.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const state = await stack.api.get(`/v1/lifecycles/${authorizationId}`);
    expect(state.data).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0.00' });
  });

  it('answers a caller without an API key 401 before reading what it sent', async () => {
    const response = await rawRequest(`${apiUrl()}/v1/lifecycles`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml', 'Content-Length': '4' },
      body: '<a/>',
    });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text).error.code).toBe('UNAUTHORIZED');
  });

  it('lists 415 in the OpenAPI document of every JSON route', async () => {
    const { paths } = (await stack.api.get('/openapi.json')).data;
    for (const path of [
      '/v1/lifecycles',
      '/v1/lifecycles/{authorizationId}/capture',
      '/v1/lifecycles/{authorizationId}/void',
      '/v1/lifecycles/{authorizationId}/reauthorize',
    ]) {
      expect(Object.keys(paths[path].post.responses)).toEqual(expect.arrayContaining(['413', '415']));
    }
  });
});
