import { startToxiproxy, type Toxiproxy } from '../toxiproxy';
import type { Toxic, ToxicKind, ToxicStream } from '../toxiproxy-client';

/**
 * The cluster's links that can fail without a process dying, each a Toxiproxy proxy:
 * - `worker-frontend`: the workers' connections to the Temporal frontend;
 * - `api-frontend`: the APIs' connections to the Temporal frontend;
 * - `history-postgres`: the history service's connections to PostgreSQL;
 * - `activities-provider`: the workers' (activities') calls to the payments provider;
 * - `provider-webhooks`: the provider's webhook deliveries to the intake.
 */
export const linkNames = [
  'worker-frontend',
  'api-frontend',
  'history-postgres',
  'activities-provider',
  'provider-webhooks',
] as const;
export type LinkName = (typeof linkNames)[number];

const streams: ToxicStream[] = ['upstream', 'downstream'];

export interface ClusterLinks {
  toxiproxy: Toxiproxy;
  /** Creates the link's proxy to `upstream` (`host:port`); answers the `host:port` to use instead. */
  add(link: LinkName, upstream: string): Promise<string>;
  /** The `host:port` a link listens on (after `add`). */
  address(link: LinkName): string;
  /**
   * Cuts the link: nothing passes either way, connections stay open and hang, new ones are accepted and hang
   * (a partition, not a refusal). `heal` closes them, as a partition that outlasted TCP's patience does.
   */
  cut(link: LinkName): Promise<void>;
  /** Holds every chunk of the answers (`downstream`, the default) or of the requests for `ms`. */
  delay(link: LinkName, ms: number, stream?: ToxicStream): Promise<void>;
  /** Resets each connection (TCP RST) `afterMs` after its first answer bytes arrive: a reset mid-response. */
  resetMidStream(link: LinkName, afterMs?: number): Promise<void>;
  /** Limits both directions to `kilobytesPerSecond`. */
  throttle(link: LinkName, kilobytesPerSecond: number): Promise<void>;
  /** Removes every toxic of the link. */
  heal(link: LinkName): Promise<void>;
  /** Removes every toxic of every link. */
  healAll(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Toxiproxy for the cluster's links; `add` then creates each link as its upstream is known. */
export async function startClusterLinks(
  options: { apiPort?: number; log?: (line: string) => void } = {},
): Promise<ClusterLinks> {
  const toxiproxy = await startToxiproxy({ port: options.apiPort, log: options.log });
  const { client } = toxiproxy;
  const addresses = new Map<LinkName, string>();
  const address = (link: LinkName) => {
    const listen = addresses.get(link);
    if (!listen) throw new Error(`the link ${link} was not created`);
    return listen;
  };
  const add = async (link: LinkName, kind: ToxicKind, stream: ToxicStream, suffix = stream) => {
    address(link);
    const toxic = { name: `${kind.type}-${suffix}`, stream, ...kind } as Toxic;
    await client.addToxic(link, toxic);
  };
  const heal = async (link: LinkName) => {
    for (const toxic of await client.toxics(link)) await client.removeToxic(link, toxic.name);
  };
  return {
    toxiproxy,
    async add(link, upstream) {
      const proxy = await client.createProxy({ name: link, listen: '127.0.0.1:0', upstream });
      addresses.set(link, proxy.listen);
      return proxy.listen;
    },
    address,
    async cut(link) {
      for (const stream of streams) await add(link, { type: 'timeout', attributes: { timeout: 0 } }, stream);
    },
    delay: (link, ms, stream = 'downstream') =>
      add(link, { type: 'latency', attributes: { latency: ms } }, stream),
    resetMidStream: (link, afterMs = 0) =>
      add(link, { type: 'reset_peer', attributes: { timeout: afterMs } }, 'downstream'),
    async throttle(link, kilobytesPerSecond) {
      for (const stream of streams)
        await add(link, { type: 'bandwidth', attributes: { rate: kilobytesPerSecond } }, stream);
    },
    heal,
    async healAll() {
      for (const link of addresses.keys()) await heal(link);
    },
    stop: () => toxiproxy.stop(),
  };
}

/** `http://host:port/path` with the host and port of `address`: a URL sent through a link. */
export function throughLink(url: string, address: string): string {
  const through = new URL(url);
  through.host = address;
  return through.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}

/** `host:port` of an `http(s)` URL, its default port filled in. */
export function hostPort(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.hostname}:${port}`;
}

/** `host` and `port` of `host:port`. */
export function hostAndPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

/**
 * Each process's addresses through its links: the workers reach the frontend and the provider through theirs,
 * the APIs the frontend through theirs; the tooling (the webhook subscription) goes direct.
 */
export async function linkedProcessEnv(
  links: ClusterLinks,
  direct: { temporalAddress: string; paymentsBaseUrl: string },
): Promise<(name: string) => NodeJS.ProcessEnv> {
  const workerFrontend = await links.add('worker-frontend', direct.temporalAddress);
  const apiFrontend = await links.add('api-frontend', direct.temporalAddress);
  const provider = await links.add('activities-provider', hostPort(direct.paymentsBaseUrl));
  return (name) => {
    if (name.startsWith('worker-')) {
      return {
        TEMPORAL_ADDRESS: workerFrontend,
        PAYPAL_BASE_URL: throughLink(direct.paymentsBaseUrl, provider),
      };
    }
    if (name.startsWith('api-')) return { TEMPORAL_ADDRESS: apiFrontend };
    return {};
  };
}

/** One line for the start-up output: Toxiproxy's API and each link's address. */
export function linksAnnouncement(links: ClusterLinks): string {
  const created = linkNames.map((link) => `${link} ${links.address(link)}`).join(', ');
  return `API ${links.toxiproxy.apiUrl}; ${created}`;
}
