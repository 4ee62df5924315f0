import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { createSigningCertificate, type SigningCertificate } from '../../src/sandbox/paypal/certificate';
import { CertificateCache } from '../../src/providers/paypal/certificate-cache';

// A certificate host over real HTTP: it serves the certificate at any /v1/notifications/certs/CERT-* path and
// (like a careless or hostile host) at any other path and query too; 404 for ids starting "CERT-missing".
let server: Server;
let origin: string;
let signing: SigningCertificate;
const requests: string[] = [];

beforeAll(async () => {
  signing = await createSigningCertificate(new Date());
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url?.includes('CERT-missing')) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(signing.certificatePem);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  requests.length = 0;
});

const genuinePath = '/v1/notifications/certs/CERT-360caa42-fca2a594';

describe('cert_url is fetched only from an allowed origin and certificate path', () => {
  it('refuses plain http, another port, another path, a query or credentials, without a request', async () => {
    const hostOnly = new CertificateCache({ allowedHosts: ['127.0.0.1'] });
    const port = new URL(origin).port;
    expect(await hostOnly.certificate(`${origin}${genuinePath}`)).toEqual({
      refused: `cert_url origin ${origin} is not allowed (https on the default port of an allowed host)`,
    });
    expect(await hostOnly.certificate(`https://127.0.0.1:${port}${genuinePath}`)).toMatchObject({
      refused: expect.stringContaining('is not allowed'),
    });

    const cache = new CertificateCache({ allowedHosts: [origin] });
    const onlyCertificates = {
      refused: `cert_url must be ${origin}/v1/notifications/certs/<certificate id>, nothing more`,
    };
    for (const url of [
      `${origin}/certs/attacker`,
      `${origin}/v1/notifications/certs/`,
      `${origin}/v1/notifications/certs/../../admin`,
      `${origin}/v1/notifications/certs/CERT-a/extra`,
      `${origin}${genuinePath}?n=1`,
      `${origin}${genuinePath}#part`,
      `http://user:secret@127.0.0.1:${port}${genuinePath}`,
    ]) {
      expect(await cache.certificate(url)).toEqual(onlyCertificates);
    }
    expect(requests).toEqual([]);
  });

  it('accepts https on the default port of a host on the list', async () => {
    const cache = new CertificateCache({ allowedHosts: ['localhost'] });
    // Allowed, so it is requested: nothing listens on port 443 here, a transient failure rather than a refusal.
    await expect(cache.certificate(`https://localhost:443${genuinePath}`)).rejects.toThrow(/ECONNREFUSED/);
    expect(await cache.certificate(`https://localhost:8443${genuinePath}`)).toMatchObject({
      refused: expect.stringContaining('is not allowed'),
    });
  });
});

describe('WEBHOOK_CERT_HOSTS', () => {
  it('takes host names and origins, and names itself when an entry is neither', () => {
    expect(
      loadConfig({ WEBHOOK_CERT_HOSTS: 'api.paypal.com, http://sandbox:8090' }).WEBHOOK_CERT_HOSTS,
    ).toEqual(['api.paypal.com', 'http://sandbox:8090']);
    for (const entry of ['ftp://files.example', 'https://api.paypal.com/certs', 'exa mple']) {
      expect(() => loadConfig({ WEBHOOK_CERT_HOSTS: entry })).toThrow(
        /WEBHOOK_CERT_HOSTS: host names or origins/,
      );
    }
  });
});

describe('the cache holds certificates, not URLs', () => {
  it('fetches a certificate once, and 100 unknown ids or query variants do not evict it', async () => {
    const cache = new CertificateCache({ allowedHosts: [origin], maxEntries: 10 });
    expect(await cache.certificate(`${origin}${genuinePath}`)).toEqual({ pem: signing.certificatePem });

    for (let n = 0; n < 100; n += 1) {
      expect(await cache.certificate(`${origin}${genuinePath}?n=${n}`)).toHaveProperty('refused');
      expect(await cache.certificate(`${origin}/v1/notifications/certs/CERT-missing-${n}`)).toEqual({
        refused: 'cert_url answered HTTP 404',
      });
    }
    expect(await cache.certificate(`${origin}${genuinePath}`)).toEqual({ pem: signing.certificatePem });
    expect(requests.filter((url) => url === genuinePath)).toEqual([genuinePath]);
    expect(requests.filter((url) => url.includes('?'))).toEqual([]);
  });
});
