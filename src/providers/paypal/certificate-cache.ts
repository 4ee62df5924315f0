import { X509Certificate } from 'node:crypto';
import axios from 'axios';
import { certificateOriginUrl } from '../../config';

export type CertificateLookup = { pem: string } | { refused: string };

export interface CertificateCacheOptions {
  /**
   * Where a cert_url may point: `host` (https on the default port) or an origin such as
   * `http://localhost:8090` (that scheme and port exactly: a local sandbox). Nothing else is ever fetched.
   */
  allowedHosts: readonly string[];
  timeoutMs?: number;
  maxEntries?: number;
}

/** The provider serves its signing certificates here (PayPal: https://api.paypal.com/v1/notifications/certs/…). */
const CERTIFICATE_PATH_PREFIX = '/v1/notifications/certs/';
const certificatePath = /^\/v1\/notifications\/certs\/[A-Za-z0-9._-]{1,128}$/;
const MAX_CERTIFICATE_BYTES = 64 * 1024;
// Answers that say "not now" rather than "no": the verification is retried.
const transientStatuses = new Set([408, 429]);

/**
 * The signing certificates named by deliveries' cert_url. The URL comes from an unauthenticated request, so it
 * must name an allowed origin and a certificate path, without query or credentials, before any request is
 * made; redirects are not followed (they could lead anywhere). Only certificates are kept, one entry per
 * certificate: URLs the provider does not answer with a certificate cannot evict a genuine one.
 */
export class CertificateCache {
  private readonly certificates = new Map<string, string>();
  private readonly fetching = new Map<string, Promise<CertificateLookup>>();
  private readonly allowedOrigins: Set<string>;

  constructor(private readonly options: CertificateCacheOptions) {
    this.allowedOrigins = new Set(options.allowedHosts.map((entry) => certificateOriginUrl(entry).origin));
  }

  /** Rejects only on a transient failure (network, 408, 429, 5xx): the caller retries. */
  async certificate(certUrl: string): Promise<CertificateLookup> {
    const location = this.location(certUrl);
    if ('refused' in location) return location;
    const { key } = location;
    const pem = this.certificates.get(key);
    if (pem) return { pem };
    const pending = this.fetching.get(key) ?? this.fetch(key);
    this.fetching.set(key, pending);
    try {
      const lookup = await pending;
      if ('pem' in lookup) this.keep(key, lookup.pem);
      return lookup;
    } finally {
      this.fetching.delete(key);
    }
  }

  private keep(key: string, pem: string): void {
    this.certificates.set(key, pem);
    if (this.certificates.size > (this.options.maxEntries ?? 100)) {
      this.certificates.delete(this.certificates.keys().next().value as string);
    }
  }

  /** The certificate's canonical URL (its cache key), or why cert_url is not fetched. */
  private location(certUrl: string): { key: string } | { refused: string } {
    let url: URL;
    try {
      url = new URL(certUrl);
    } catch {
      return { refused: 'cert_url is not a URL' };
    }
    if (!this.allowedOrigins.has(url.origin)) {
      return {
        refused: `cert_url origin ${url.origin} is not allowed (https on the default port of an allowed host)`,
      };
    }
    if (url.username || url.password || url.search || url.hash || !certificatePath.test(url.pathname)) {
      return {
        refused: `cert_url must be ${url.origin}${CERTIFICATE_PATH_PREFIX}<certificate id>, nothing more`,
      };
    }
    return { key: `${url.origin}${url.pathname}` };
  }

  private async fetch(url: string): Promise<CertificateLookup> {
    const response = await axios.get<string>(url, {
      responseType: 'text',
      transformResponse: (data: string) => data,
      timeout: this.options.timeoutMs ?? 5_000,
      maxRedirects: 0,
      maxContentLength: MAX_CERTIFICATE_BYTES,
      validateStatus: () => true,
    });
    if (response.status >= 500 || transientStatuses.has(response.status)) {
      throw new Error(`cert_url answered HTTP ${response.status}; asked again`);
    }
    if (response.status !== 200) return { refused: `cert_url answered HTTP ${response.status}` };
    try {
      new X509Certificate(response.data);
    } catch {
      return { refused: 'cert_url did not return a PEM certificate' };
    }
    return { pem: response.data };
  }
}
