import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios, { type AxiosInstance } from 'axios';
import { HELD_DELIVERIES_PATH } from '../../src/sandbox/held-deliveries';
import { startSandbox, type Sandbox } from '../../src/sandbox/server';

// The sandbox's held deliveries, which the money model delays, reorders and duplicates webhooks with.

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A listener that records what it receives and answers each with the next of `statuses` (then 200). */
async function startListener(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      received.push({ headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') });
      outgoing.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, received, close: () => server.close() };
}

const TOKEN = 'held-deliveries-test';

const eventTypeOf = (received: Received) => (JSON.parse(received.body) as { event_type: string }).event_type;

describe('held deliveries', () => {
  let sandbox: Sandbox;
  let control: AxiosInstance;

  beforeEach(async () => {
    sandbox = await startSandbox({ logger: false, staticTokens: [TOKEN] });
    control = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
    await control.post('/sandbox/webhooks', {
      url: `${sandbox.url}${HELD_DELIVERIES_PATH}`,
      event_types: [{ name: '*' }],
    });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  /** An authorization, then its void: PAYMENT.AUTHORIZATION.CREATED, then VOIDED. */
  async function twoEvents(): Promise<void> {
    const authorization = await control.post<{ id: string }>('/sandbox/authorizations', {
      amount: { currency_code: 'USD', value: '10.00' },
    });
    await control.post(`/v2/payments/authorizations/${authorization.data.id}/void`, undefined, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await sandbox.deliveriesSettled();
  }

  it('holds transmissions and releases them newest first, twice each, with the bytes and signature sent', async () => {
    const listener = await startListener();
    await twoEvents();
    const held = await control.get<{ held: Array<{ eventType: string }> }>(HELD_DELIVERIES_PATH);
    expect(held.data.held.map((each) => each.eventType)).toEqual([
      'PAYMENT.AUTHORIZATION.CREATED',
      'PAYMENT.AUTHORIZATION.VOIDED',
    ]);
    expect(listener.received).toEqual([]);

    const released = await control.post(`${HELD_DELIVERIES_PATH}/release`, {
      to: listener.url,
      order: 'newest',
      copies: 2,
    });

    expect(released.status).toBe(200);
    expect(listener.received.map(eventTypeOf)).toEqual([
      'PAYMENT.AUTHORIZATION.VOIDED',
      'PAYMENT.AUTHORIZATION.VOIDED',
      'PAYMENT.AUTHORIZATION.CREATED',
      'PAYMENT.AUTHORIZATION.CREATED',
    ]);
    const [first, copy] = listener.received;
    expect(copy).toEqual(first);
    const sent = sandbox
      .deliveries()
      .find((delivery) => delivery.eventType === 'PAYMENT.AUTHORIZATION.VOIDED');
    expect(first?.headers['service-transmission-id']).toBe(sent?.transmissionId);
    expect((await control.get<{ held: unknown[] }>(HELD_DELIVERIES_PATH)).data.held).toEqual([]);
    listener.close();
  });

  it('releases the oldest `count` and keeps the rest; a 409 answer holds the transmission again', async () => {
    const listener = await startListener([409]);
    await control.post('/sandbox/authorizations', { amount: { currency_code: 'USD', value: '10.00' } });
    await control.post('/sandbox/authorizations', { amount: { currency_code: 'USD', value: '20.00' } });
    await sandbox.deliveriesSettled();

    const released = await control.post<{ released: Array<{ statuses: number[] }> }>(
      `${HELD_DELIVERIES_PATH}/release`,
      { to: listener.url, count: 1 },
    );

    expect(released.data.released.map((each) => each.statuses)).toEqual([[409]]);
    const held = await control.get<{ held: unknown[] }>(HELD_DELIVERIES_PATH);
    expect(held.data.held).toHaveLength(2);
    await control.post(`${HELD_DELIVERIES_PATH}/release`, { to: listener.url });
    const amounts = listener.received.map(
      (received) =>
        (JSON.parse(received.body) as { resource: { amount: { value: string } } }).resource.amount.value,
    );
    expect(amounts).toEqual(['10.00', '20.00', '10.00']);
    listener.close();
  });

  it('discards the newest `count`, never delivered, and keeps the rest', async () => {
    const listener = await startListener();
    await twoEvents();

    const discarded = await control.post<{ discarded: Array<{ eventType: string }> }>(
      `${HELD_DELIVERIES_PATH}/discard`,
      { order: 'newest', count: 1 },
    );

    expect(discarded.status).toBe(200);
    expect(discarded.data.discarded.map((each) => each.eventType)).toEqual(['PAYMENT.AUTHORIZATION.VOIDED']);
    await control.post(`${HELD_DELIVERIES_PATH}/release`, { to: listener.url });
    expect(listener.received.map(eventTypeOf)).toEqual(['PAYMENT.AUTHORIZATION.CREATED']);
    expect((await control.get<{ held: unknown[] }>(HELD_DELIVERIES_PATH)).data.held).toEqual([]);
    listener.close();
  });
});
