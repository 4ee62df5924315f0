import { randomUUID } from 'node:crypto';
import { request as httpRequest, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import type { WebhookRegistry } from './webhooks';

/** An event as the provider mode shapes it: its id, its type, and the JSON body every subscriber gets. */
export interface DeliveryEvent {
  id: string;
  type: string;
  body: unknown;
}

/** One transmission of an event to one webhook: what the provider mode signs. */
export interface Transmission {
  transmissionId: string;
  transmissionTime: string;
  webhookId: string;
  /** The exact bytes sent. */
  body: Buffer;
}

/** The provider's signature headers of one transmission. */
export type DeliverySigner = (transmission: Transmission) => Record<string, string>;

export interface DeliveryRetry {
  /** Attempts in all, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs?: number;
  /** Per attempt: a listener slower than this counts as a failed attempt. */
  timeoutMs?: number;
}

export interface DeliveryAttempt {
  attempt: number;
  /** Each attempt is a transmission of its own: its id, time and signature. */
  transmissionId: string;
  at: string;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

/** One event on its way to one webhook; the control API lists these. */
export interface DeliveryRecord {
  eventId: string;
  eventType: string;
  webhookId: string;
  url: string;
  /** The latest attempt's transmission. */
  transmissionId: string;
  transmissionTime: string;
  attempts: DeliveryAttempt[];
  lastStatus: number | null;
  lastError?: string;
  delivered: boolean;
  gaveUp: boolean;
  nextAttemptAt?: string;
}

type AttemptResult = { statusCode: number } | { error: string };

/**
 * Signs and POSTs each event to every webhook subscribed to its type, retrying with doubling delays on a
 * non-2xx answer or a network error. The body is serialized once per event; those exact bytes are signed
 * and sent. Each attempt is a new transmission, with its own id, time and signature, so a listener that
 * refuses transmissions older than a few minutes still accepts a retry hours later; the event id stays.
 */
export class WebhookDeliveries {
  private readonly records: DeliveryRecord[] = [];
  private readonly events = new Map<string, DeliveryEvent>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<ClientRequest>();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly options: {
      webhooks: WebhookRegistry;
      sign: DeliverySigner;
      retry: Required<DeliveryRetry>;
      now: () => Date;
      log: Logger;
    },
  ) {}

  publish(event: DeliveryEvent): void {
    this.events.set(event.id, event);
    const body = Buffer.from(JSON.stringify(event.body), 'utf8');
    for (const webhook of this.options.webhooks.subscribersOf(event.type)) {
      const record: DeliveryRecord = {
        eventId: event.id,
        eventType: event.type,
        webhookId: webhook.id,
        url: webhook.url,
        transmissionId: '',
        transmissionTime: '',
        attempts: [],
        lastStatus: null,
        delivered: false,
        gaveUp: false,
      };
      this.records.push(record);
      this.pending += 1;
      void this.attempt(record, body);
    }
  }

  /** The body of event `id`, as delivered. */
  event(id: string): unknown {
    return this.events.get(id)?.body;
  }

  list(): DeliveryRecord[] {
    return this.records;
  }

  clear(): void {
    this.records.splice(0, this.records.length);
  }

  /** Resolves once every delivery so far has been delivered or given up. */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Cancels scheduled retries and aborts attempts in flight. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const request of this.inFlight) request.destroy();
    this.pending = 0;
    this.notifyIdle();
  }

  /** A new transmission of the record's event: a fresh id and time, signed now. */
  private transmit(record: DeliveryRecord, body: Buffer): OutgoingHttpHeaders {
    record.transmissionId = randomUUID();
    record.transmissionTime = this.options.now().toISOString();
    return {
      'content-type': 'application/json',
      'content-length': body.length,
      'user-agent': 'payments-sandbox/1.0',
      ...this.options.sign({
        transmissionId: record.transmissionId,
        transmissionTime: record.transmissionTime,
        webhookId: record.webhookId,
        body,
      }),
    };
  }

  private async attempt(record: DeliveryRecord, body: Buffer): Promise<void> {
    const started = Date.now();
    const headers = this.transmit(record, body);
    const { transmissionId, transmissionTime: at } = record;
    const result = await this.post(record.url, body, headers);
    if (this.stopped) return;
    const attempt = record.attempts.length + 1;
    record.attempts.push({ attempt, transmissionId, at, ...result, durationMs: Date.now() - started });
    record.lastStatus = 'statusCode' in result ? result.statusCode : null;
    record.lastError = 'error' in result ? result.error : undefined;
    record.nextAttemptAt = undefined;
    const log = { eventId: record.eventId, webhookId: record.webhookId, url: record.url, attempt, ...result };

    if ('statusCode' in result && result.statusCode >= 200 && result.statusCode < 300) {
      record.delivered = true;
      this.options.log.info(log, 'webhook event delivered');
      return this.finish();
    }
    const { attempts, initialDelayMs, maxDelayMs } = this.options.retry;
    if (attempt >= attempts || !this.options.webhooks.has(record.webhookId)) {
      record.gaveUp = true;
      this.options.log.warn(log, 'webhook event not delivered; giving up');
      return this.finish();
    }
    const delay = Math.min(initialDelayMs * 2 ** (attempt - 1), maxDelayMs);
    record.nextAttemptAt = new Date(this.options.now().getTime() + delay).toISOString();
    this.options.log.info({ ...log, retryInMs: delay }, 'webhook event not delivered; will retry');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(record, body);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private post(url: string, body: Buffer, headers: OutgoingHttpHeaders): Promise<AttemptResult> {
    return new Promise((resolve) => {
      const send = url.startsWith('https:') ? httpsRequest : httpRequest;
      let request: ClientRequest;
      try {
        request = send(url, { method: 'POST', headers, agent: false, timeout: this.options.retry.timeoutMs });
      } catch (error) {
        return resolve({ error: error instanceof Error ? error.message : String(error) });
      }
      this.inFlight.add(request);
      const done = (result: AttemptResult) => {
        this.inFlight.delete(request);
        resolve(result);
      };
      request.on('response', (response) => {
        response.resume();
        done({ statusCode: response.statusCode ?? 0 });
      });
      request.on('timeout', () =>
        request.destroy(new Error(`no answer within ${this.options.retry.timeoutMs} ms`)),
      );
      request.on('error', (error) => done({ error: error.message }));
      request.end(body);
    });
  }

  private finish(): void {
    this.pending = Math.max(0, this.pending - 1);
    if (this.pending === 0) this.notifyIdle();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
