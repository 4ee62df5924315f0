import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startClusterLinks, throughLink, type ClusterLinks } from '../../src/dev/cluster/links';

// The cluster's links on a real Toxiproxy (built with Go on first use): an HTTP server behind the
// `activities-provider` link answers through it until a toxic says otherwise.

let links: ClusterLinks;
let server: Server;
let direct: string;
let through: string;
const body = 'x'.repeat(64 * 1024);

beforeAll(async () => {
  server = createServer((_request, response) => response.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  direct = `http://127.0.0.1:${(server.address() as AddressInfo).port}/authorizations`;
  links = await startClusterLinks({ log: () => {} });
  through = throughLink(direct, await links.add('activities-provider', new URL(direct).host));
}, 120_000);

afterAll(async () => {
  await links?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

afterEach(() => links.healAll());

/** One request on a connection of its own (no pool), as each attempt of a client that reconnects. */
const get = (signal?: AbortSignal) =>
  new Promise<string>((resolve, reject) => {
    const request = httpGet(through, { agent: false, signal }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });
    request.on('error', reject);
  });

it('sends a URL through the link: same path, the link’s address', () => {
  expect(through).toBe(`http://${links.address('activities-provider')}/authorizations`);
  expect(through).not.toBe(direct);
});

it('passes requests and answers when no toxic is set', async () => {
  expect(await get()).toBe(body);
});

it('answers nothing while cut, and passes again once healed', async () => {
  await links.cut('activities-provider');
  await expect(get(AbortSignal.timeout(1_500))).rejects.toThrow(/aborted|timeout/i);
  await links.heal('activities-provider');
  expect(await get()).toBe(body);
});

it('resets the connection mid-response', async () => {
  await links.resetMidStream('activities-provider');
  await expect(get()).rejects.toThrow();
});

it('sets latency and bandwidth toxics with Toxiproxy’s attributes, and heals them', async () => {
  await links.delay('activities-provider', 20_000);
  await links.throttle('activities-provider', 512);
  const toxics = await links.toxiproxy.client.toxics('activities-provider');
  expect(toxics.map(({ type, stream, attributes }) => ({ type, stream, attributes }))).toEqual(
    expect.arrayContaining([
      { type: 'latency', stream: 'downstream', attributes: expect.objectContaining({ latency: 20_000 }) },
      { type: 'bandwidth', stream: 'upstream', attributes: { rate: 512 } },
      { type: 'bandwidth', stream: 'downstream', attributes: { rate: 512 } },
    ]),
  );
  await links.heal('activities-provider');
  expect(await links.toxiproxy.client.toxics('activities-provider')).toEqual([]);
  expect(await get()).toBe(body);
});

it('throttles without corrupting the answer', async () => {
  await links.throttle('activities-provider', 256);
  expect(await get()).toBe(body);
});

it('refuses to set a toxic on a link it did not create', async () => {
  await expect(links.cut('history-postgres')).rejects.toThrow('the link history-postgres was not created');
});
