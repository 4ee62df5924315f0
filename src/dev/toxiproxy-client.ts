// A small client for Toxiproxy's HTTP API (https://github.com/Shopify/toxiproxy#http-api): proxies and the
// toxics on them. Only what the cluster's links use.

/** `upstream`: from the client to the server; `downstream`: the answers. */
export type ToxicStream = 'upstream' | 'downstream';

/** The toxics the links use, with Toxiproxy's attribute names (times in ms, rate in KB/s). */
export type ToxicKind =
  /** Nothing passes; with `timeout` 0 the connection stays open until the toxic goes (then it is closed). */
  | { type: 'timeout'; attributes: { timeout: number } }
  /** Each chunk is held `latency` ms (± `jitter`). */
  | { type: 'latency'; attributes: { latency: number; jitter?: number } }
  /** The connection is reset (TCP RST) `timeout` ms after the first data arrives. */
  | { type: 'reset_peer'; attributes: { timeout: number } }
  /** At most `rate` KB/s. */
  | { type: 'bandwidth'; attributes: { rate: number } };

export type Toxic = ToxicKind & { name: string; stream: ToxicStream; toxicity?: number };

export interface Proxy {
  name: string;
  /** `host:port` it accepts connections on. */
  listen: string;
  /** `host:port` it forwards them to. */
  upstream: string;
  enabled: boolean;
  toxics: Toxic[];
}

export class ToxiproxyClient {
  constructor(readonly apiUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`Toxiproxy ${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Creates a proxy; `listen` `127.0.0.1:0` takes a free port, which the answer names. */
  createProxy(proxy: { name: string; listen: string; upstream: string }): Promise<Proxy> {
    return this.call('POST', '/proxies', { ...proxy, enabled: true });
  }

  proxy(name: string): Promise<Proxy> {
    return this.call('GET', `/proxies/${encodeURIComponent(name)}`);
  }

  /** A disabled proxy refuses new connections and closes the ones it has. */
  setEnabled(name: string, enabled: boolean): Promise<Proxy> {
    return this.call('POST', `/proxies/${encodeURIComponent(name)}`, { enabled });
  }

  addToxic(proxy: string, toxic: Toxic): Promise<Toxic> {
    return this.call('POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, { toxicity: 1, ...toxic });
  }

  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.call('DELETE', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`);
  }

  toxics(proxy: string): Promise<Toxic[]> {
    return this.call('GET', `/proxies/${encodeURIComponent(proxy)}/toxics`);
  }

  /** Every proxy enabled again and every toxic removed. */
  async reset(): Promise<void> {
    await this.call('POST', '/reset');
  }
}
