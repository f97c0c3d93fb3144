/**
 * What the transport tests need from the machine: an address that is not loopback (so the
 * server sees a connection off loopback), and a self-signed certificate made with openssl.
 * Each returns the problem as text when the machine cannot provide it, for requirement().
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

export function nonLoopbackAddress(): { address?: string; problem?: string } {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv4' && !entry.internal) return { address: entry.address };
    }
  }
  return { problem: 'this machine has no non-loopback IPv4 interface' };
}

export interface Certificate {
  readonly cert: string;
  readonly key: string;
}

/** A throwaway self-signed certificate for localhost and 127.0.0.1 (RSA 2048, one day). */
export function selfSignedCertificate(): { certificate?: Certificate; problem?: string } {
  const directory = mkdtempSync(join(tmpdir(), 'latchkey-tls-'));
  try {
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(directory, 'key.pem'),
        '-out',
        join(directory, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    if (made.error !== undefined) return { problem: `openssl: ${made.error.message}` };
    if (made.status !== 0) return { problem: `openssl failed: ${made.stderr.slice(0, 200)}` };
    return {
      certificate: {
        cert: readFileSync(join(directory, 'cert.pem'), 'utf8'),
        key: readFileSync(join(directory, 'key.pem'), 'utf8'),
      },
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
