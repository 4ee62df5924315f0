import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TLSConfig } from '@temporalio/client';
import { clientConfigToToml } from '@temporalio/envconfig';
import { generate } from 'selfsigned';

/** A certificate and its private key, as PEM files. */
export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

/** The cluster's mTLS material: one CA, the frontend's certificate, and one client certificate per name. */
export interface ClusterCertificates {
  caFile: string;
  /** The CA's key, kept beside it for the cluster's lifetime to sign renewed client certificates. */
  caKeyFile: string;
  /** The name clients verify the frontend's certificate against (it also carries 127.0.0.1). */
  serverName: string;
  frontend: CertificateFiles;
  clients: Record<string, CertificateFiles>;
}

const SERVER_NAME = 'localhost';
const DAY_MS = 86_400_000;

function write(dir: string, name: string, cert: string, key: string): CertificateFiles {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key, { mode: 0o600 });
  return { certFile, keyFile };
}

interface Signer {
  key: string;
  cert: string;
}

function validity() {
  return {
    algorithm: 'sha256',
    keyType: 'ec' as const,
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + 7 * DAY_MS),
  };
}

function signed(ca: Signer, commonName: string, usage: { serverAuth?: boolean; clientAuth?: boolean }) {
  return generate([{ name: 'commonName', value: commonName }], {
    ...validity(),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', ...usage },
      {
        name: 'subjectAltName',
        altNames: usage.serverAuth
          ? [
              { type: 2, value: SERVER_NAME },
              { type: 7, ip: '127.0.0.1' },
            ]
          : [{ type: 2, value: commonName }],
      },
    ],
  });
}

/**
 * Generates, at each start, a CA valid for a week and certificates it signs into `dir`: the frontend's (for
 * `localhost` and 127.0.0.1) and one client certificate per name in `clientNames` (its common name).
 * Nothing is kept between runs, so no key outlives the cluster that used it.
 */
export async function writeClusterCertificates(
  dir: string,
  clientNames: string[],
): Promise<ClusterCertificates> {
  mkdirSync(dir, { recursive: true });
  const ca = await generate([{ name: 'commonName', value: 'payments cluster CA' }], {
    ...validity(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const signer = { key: ca.private, cert: ca.cert };
  const caFiles = write(dir, 'ca', ca.cert, ca.private);
  const server = await signed(signer, 'temporal-frontend', { serverAuth: true, clientAuth: true });
  const clients: Record<string, CertificateFiles> = {};
  for (const name of clientNames) {
    const client = await signed(signer, name, { clientAuth: true });
    clients[name] = write(dir, `client-${name}`, client.cert, client.private);
  }
  return {
    caFile: caFiles.certFile,
    caKeyFile: caFiles.keyFile,
    serverName: SERVER_NAME,
    frontend: write(dir, 'frontend', server.cert, server.private),
    clients,
  };
}

/**
 * Replaces `client`'s certificate and key with new ones from the same CA, at the same paths: a process
 * started after it presents the new certificate.
 */
export async function rotateClientCertificate(
  certificates: ClusterCertificates,
  client: string,
): Promise<void> {
  const files = certificates.clients[client];
  if (!files) throw new Error(`no client certificate named ${client}`);
  const signer = {
    key: readFileSync(certificates.caKeyFile, 'utf8'),
    cert: readFileSync(certificates.caFile, 'utf8'),
  };
  const renewed = await signed(signer, client, { clientAuth: true });
  writeFileSync(files.certFile, renewed.cert);
  writeFileSync(files.keyFile, renewed.private, { mode: 0o600 });
}

/**
 * Replaces the frontend's certificate and key with new ones from the same CA, at the same paths: the server
 * reads them again within its TLS refresh interval, and new connections get the new certificate.
 */
export async function rotateFrontendCertificate(certificates: ClusterCertificates): Promise<void> {
  const signer = {
    key: readFileSync(certificates.caKeyFile, 'utf8'),
    cert: readFileSync(certificates.caFile, 'utf8'),
  };
  const renewed = await signed(signer, 'temporal-frontend', { serverAuth: true, clientAuth: true });
  // Between the two writes the pair does not match: a refresh then fails and the server keeps the old pair.
  writeFileSync(certificates.frontend.keyFile, renewed.private, { mode: 0o600 });
  writeFileSync(certificates.frontend.certFile, renewed.cert);
}

/** The variables of Temporal's environment configuration that make a process connect with `client`. */
export function clientTlsEnv(certificates: ClusterCertificates, client: string): Record<string, string> {
  const files = certificates.clients[client];
  if (!files) throw new Error(`no client certificate named ${client}`);
  return {
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_CLIENT_CERT_PATH: files.certFile,
    TEMPORAL_TLS_CLIENT_KEY_PATH: files.keyFile,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caFile,
    TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
  };
}

/** The SDK's TLS options for a connection that presents `client`'s certificate. */
export function clientTlsConfig(certificates: ClusterCertificates, client: string): TLSConfig {
  const files = certificates.clients[client];
  if (!files) throw new Error(`no client certificate named ${client}`);
  return {
    serverNameOverride: certificates.serverName,
    serverRootCACertificate: readFileSync(certificates.caFile),
    clientCertPair: { crt: readFileSync(files.certFile), key: readFileSync(files.keyFile) },
  };
}

/**
 * Writes `temporal.toml` beside the certificates with the profile `cluster` (the `tooling` certificate), for
 * the `temporal` CLI and any process: `TEMPORAL_CONFIG_FILE=<file> TEMPORAL_PROFILE=cluster`.
 */
export function writeClusterProfile(
  dir: string,
  certificates: ClusterCertificates,
  target: { address: string; namespace: string },
): string {
  const files = certificates.clients.tooling;
  if (!files) throw new Error('no client certificate named tooling');
  const file = join(dir, 'temporal.toml');
  const toml = clientConfigToToml({
    profiles: {
      cluster: {
        ...target,
        tls: {
          serverName: certificates.serverName,
          serverCACert: { path: certificates.caFile },
          clientCert: { path: files.certFile },
          clientKey: { path: files.keyFile },
        },
      },
    },
  });
  writeFileSync(file, toml);
  return file;
}
