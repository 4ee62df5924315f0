import { isIP } from 'node:net';
import { z } from 'zod';

// The forms several variables share.

export const port = z.coerce.number().int().min(1).max(65535);
export const optionalUrl = z.url().optional();
export const flag = z.enum(['true', 'false', '1', '0']);
export const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().min(1)));

/** A TRUST_PROXY entry: an exact address or a CIDR narrower than "everyone" (that would be trustProxy: true). */
export function isProxyAddress(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits >= 1 && bits <= (family === 4 ? 32 : 128);
}

/** A WEBHOOK_CERT_HOSTS entry as a URL: `host` means https on its default port. Throws when it is no URL. */
export function certificateOriginUrl(entry: string): URL {
  return new URL(entry.includes('://') ? entry : `https://${entry}`);
}

export function isCertificateOrigin(entry: string): boolean {
  try {
    const url = certificateOriginUrl(entry);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search;
  } catch {
    return false;
  }
}
