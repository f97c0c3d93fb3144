/**
 * A peer: passport-http-oauth's TokenStrategy on Express 5, as its README sets it up, guarding
 * GET /api/me. Credentials in memory from BENCH_CREDENTIALS (the lean verifier's JSON), the
 * timestamp window and replay checked in its `validate` callback with an in-memory nonce set,
 * as the lean verifier does. HMAC-SHA1 in the Authorization header, as the scenario sends it.
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { announceReady, portArgument } from './ready.ts';

type Done = (error: unknown, found?: unknown, secret?: string) => void;
interface Passport {
  use(strategy: unknown): void;
  initialize(): unknown;
  authenticate(name: string, options: { session: boolean }): unknown;
}
interface Express {
  (): {
    use(handler: unknown): void;
    get(path: string, ...handlers: unknown[]): void;
    listen(port: number, host: string, ready: () => void): Server;
  };
}

// Neither package ships types; they are loaded as the CommonJS modules they are.
const require = createRequire(import.meta.url);
const express = require('express') as Express;
const passport = require('passport') as Passport;
const { TokenStrategy } = require('passport-http-oauth') as {
  TokenStrategy: new (
    consumer: (key: string, done: Done) => void,
    verify: (token: string, done: Done) => void,
    validate: (timestamp: string, nonce: string, done: (e: unknown, ok: boolean) => void) => void,
  ) => unknown;
};

interface Credentials {
  clients: { key: string; secret: string }[];
  tokens: { token: string; secret: string; clientKey: string }[];
}
const WINDOW = 300;
const credentials = JSON.parse(process.env['BENCH_CREDENTIALS'] ?? '{}') as Credentials;
const clients = new Map(credentials.clients.map((c) => [c.key, c]));
const tokens = new Map(credentials.tokens.map((t) => [t.token, t]));

// Two generations of nonces, rotated every window, as in the lean verifier.
let nonces = new Set<string>();
let previousNonces = new Set<string>();
setInterval(() => {
  previousNonces = nonces;
  nonces = new Set();
}, WINDOW * 1000).unref();

passport.use(
  new TokenStrategy(
    (key, done) => {
      const client = clients.get(key);
      if (client === undefined) return done(null, false);
      return done(null, client, client.secret);
    },
    (token, done) => {
      const found = tokens.get(token);
      if (found === undefined) return done(null, false);
      return done(null, { owner: found.token, client: found.clientKey }, found.secret);
    },
    (timestamp, nonce, done) => {
      if (Math.abs(Date.now() / 1000 - Number(timestamp)) > WINDOW) return done(null, false);
      const key = `${timestamp}\n${nonce}`;
      if (nonces.has(key) || previousNonces.has(key)) return done(null, false);
      nonces.add(key);
      return done(null, true);
    },
  ),
);

const app = express();
app.use(passport.initialize());
app.get(
  '/api/me',
  passport.authenticate('oauth', { session: false }),
  (request: { user: unknown }, response: { json(body: unknown): void }) => {
    response.json(request.user);
  },
);
const server = app.listen(portArgument(), '127.0.0.1', () => announceReady(server.address()));
server.keepAliveTimeout = 60_000;
