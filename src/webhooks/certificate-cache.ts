import { X509Certificate } from 'node:crypto';
import axios from 'axios';

export type CertificateLookup = { pem: string } | { refused: string };

export interface CertificateCacheOptions {
  /** Host names (or IP literals) a cert_url may name; nothing else is ever fetched. */
  allowedHosts: readonly string[];
  timeoutMs?: number;
  maxEntries?: number;
}

const MAX_CERTIFICATE_BYTES = 64 * 1024;

/**
 * The signing certificates named by deliveries' cert_url, fetched once each. The URL comes from an
 * unauthenticated request, so its host must be on the allow-list before any request is made, and
 * redirects are not followed (they could lead anywhere).
 */
export class CertificateCache {
  private readonly entries = new Map<string, Promise<CertificateLookup>>();
  private readonly allowedHosts: Set<string>;

  constructor(private readonly options: CertificateCacheOptions) {
    this.allowedHosts = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
  }

  /** Rejects only on a transient failure (network, 5xx): the caller retries. */
  certificate(certUrl: string): Promise<CertificateLookup> {
    const refusal = this.refusal(certUrl);
    if (refusal) return Promise.resolve({ refused: refusal });
    const cached = this.entries.get(certUrl);
    if (cached) return cached;
    const lookup = this.fetch(certUrl);
    this.entries.set(certUrl, lookup);
    if (this.entries.size > (this.options.maxEntries ?? 100)) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    // Only certificates are kept; a refusal or failure is asked again next time.
    lookup.then(
      (result) => 'refused' in result && this.entries.delete(certUrl),
      () => this.entries.delete(certUrl),
    );
    return lookup;
  }

  private refusal(certUrl: string): string | undefined {
    let url: URL;
    try {
      url = new URL(certUrl);
    } catch {
      return 'cert_url is not a URL';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return `cert_url scheme ${url.protocol} is not allowed`;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (!this.allowedHosts.has(host)) return `cert_url host ${host} is not on the allow-list`;
    return undefined;
  }

  private async fetch(certUrl: string): Promise<CertificateLookup> {
    const response = await axios.get<string>(certUrl, {
      responseType: 'text',
      transformResponse: (data: string) => data,
      timeout: this.options.timeoutMs ?? 5_000,
      maxRedirects: 0,
      maxContentLength: MAX_CERTIFICATE_BYTES,
      validateStatus: (status) => status < 500,
    });
    if (response.status !== 200) return { refused: `cert_url answered HTTP ${response.status}` };
    try {
      new X509Certificate(response.data);
    } catch {
      return { refused: 'cert_url did not return a PEM certificate' };
    }
    return { pem: response.data };
  }
}
