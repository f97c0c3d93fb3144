/**
 * Credentials for the lean reference verifier, made in memory: the same shape as a seeded
 * Latchkey database's so workloads need not care, plus the JSON the verifier reads.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { SeededCredentials } from './seed-latchkey.ts';

export function leanCredentials(): { credentials: SeededCredentials; env: string } {
  const id = () => randomBytes(12).toString('base64url');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const hmacClient = { key: id(), secret: id() };
  const rsaClient = {
    key: id(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  const token = { token: id(), secret: id() };
  const rsaToken = { token: id(), secret: id() };
  const env = JSON.stringify({
    clients: [
      hmacClient,
      {
        key: rsaClient.key,
        secret: '',
        rsaPublicKey: publicKey.export({ type: 'spki', format: 'pem' }),
      },
    ],
    tokens: [
      { ...token, clientKey: hmacClient.key },
      { ...rsaToken, clientKey: rsaClient.key },
    ],
  });
  const credentials = {
    hmacClient,
    rsaClient,
    token,
    rsaToken,
    sample: [token],
    ownerId: '',
    username: '',
    tokens: 2,
  };
  return { credentials, env };
}
