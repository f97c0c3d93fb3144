/**
 * The later migration steps (migrations.ts takes them in this order, after its own): webhooks,
 * admin tokens, remembered consents, usage, device hints, scope ceilings, the previous
 * credentials of a rotation with overlap and the console's sessions. The rules for adding one are in migrations.ts.
 */
import { alike, type MigrationStep } from './migration-step.ts';

export const policySteps: readonly MigrationStep[] = [
  // Webhooks and their durable delivery queue (src/store/contract WebhookStore); the secret
  // sealed as client secrets are. A delivery is due while next_attempt_at is set.
  {
    name: 'webhooks',
    ...alike(
      (t) => `
  CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    events ${t.list} NOT NULL,
    secret TEXT NOT NULL,
    secret_key_id TEXT,
    created_at ${t.int64} NOT NULL,
    disabled_at ${t.int64}
  );
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at ${t.int64} NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER,
    last_error TEXT,
    next_attempt_at ${t.int64},
    claim TEXT,
    claimed_until ${t.int64},
    delivered_at ${t.int64}
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE next_attempt_at IS NOT NULL;
  CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, created_at);
  `,
    ),
  },
  // The admin API's bearer tokens (src/store/contract AdminTokenStore): the digest of the
  // secret part only, found by the public id the token carries.
  {
    name: 'admin tokens',
    ...alike(
      (t) => `
  CREATE TABLE admin_tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at ${t.int64} NOT NULL,
    expires_at ${t.int64}
  );
  `,
    ),
  },
  // Per client: consent remembered ('never' or 'same-scope') and the owner named in the token
  // response; the owners' remembered consents, one per (owner, client).
  {
    name: 'remembered consents',
    ...alike(
      (t) => `
  ALTER TABLE clients ADD COLUMN remember_consent TEXT NOT NULL DEFAULT 'never';
  ALTER TABLE clients ADD COLUMN token_response_identity ${t.bool} NOT NULL DEFAULT ${t.no};
  CREATE TABLE remembered_consents (
    owner_id TEXT NOT NULL REFERENCES owners (id) ON DELETE CASCADE,
    client_key TEXT NOT NULL REFERENCES clients (key) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    since ${t.int64} NOT NULL,
    PRIMARY KEY (owner_id, client_key)
  )${t.keyed};
  `,
    ),
  },
  // A client's use per UTC day (src/store/usage.ts UsageStore): verified requests and last
  // use, failures by oauth_problem, the owners acted for (one row each: exact counts).
  {
    name: 'client usage',
    ...alike(
      (t) => `
  CREATE TABLE client_usage (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    requests ${t.int64} NOT NULL,
    last_used_at ${t.int64},
    PRIMARY KEY (client_key, day)
  );
  CREATE TABLE client_usage_failures (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    problem TEXT NOT NULL,
    count ${t.int64} NOT NULL,
    PRIMARY KEY (client_key, day, problem)
  );
  CREATE TABLE client_usage_owners (
    client_key TEXT NOT NULL,
    day TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    PRIMARY KEY (client_key, day, owner_id)
  );
  CREATE INDEX client_usage_day ON client_usage (day);
  CREATE INDEX client_usage_failures_day ON client_usage_failures (day);
  CREATE INDEX client_usage_owners_day ON client_usage_owners (day);
  `,
    ),
  },
  // Per token: the User-Agent of its first verified request, so an owner can tell two tokens
  // of one app apart (a phone, a laptop) and revoke one (§2.3). Written with the last use.
  {
    name: 'token device hints',
    ...alike(() => 'ALTER TABLE token_credentials ADD COLUMN device_hint TEXT;'),
  },
  // Per client: its scope ceiling, the operator's scopes it may ask for and use
  // (docs/decisions.md "Scope ceilings"); an empty list, as every existing client gets, is none.
  {
    name: 'client scope ceilings',
    sqlite: `ALTER TABLE clients ADD COLUMN scopes TEXT NOT NULL DEFAULT '[]';`,
    postgres: `ALTER TABLE clients ADD COLUMN scopes TEXT[] NOT NULL DEFAULT '{}';`,
  },
  // A client's secret or public key replaced with an overlap (docs/decisions.md "Rotation with
  // overlap"): the previous one, sealed as client secrets are (the public key too: one path),
  // accepted until `until`, then kept for recognising a request signed with it until upkeep
  // forgets it; `ended_at` is set once, by the instance that records the end of the overlap;
  // `last_used_at`, written in batches, tells the developer whether anything still signs with it.
  {
    name: 'previous client credentials',
    ...alike(
      (t) => `
  CREATE TABLE client_previous_credentials (
    id TEXT PRIMARY KEY,
    client_key TEXT NOT NULL REFERENCES clients (key) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('secret', 'public-key')),
    value TEXT NOT NULL,
    value_key_id TEXT,
    replaced_at ${t.int64} NOT NULL,
    until ${t.int64} NOT NULL,
    ended_at ${t.int64},
    last_used_at ${t.int64}
  );
  CREATE INDEX client_previous_credentials_client ON client_previous_credentials (client_key);
  CREATE INDEX client_previous_credentials_until ON client_previous_credentials (until);
  `,
    ),
  },
  // The operator console's sign-ins, shared by every instance behind a load balancer: the
  // SHA-256 of the browser's session value and the admin token's public id (never the token);
  // a revoked token takes its sessions with it.
  {
    name: 'console sessions',
    ...alike(
      (t) => `
  CREATE TABLE console_sessions (
    id TEXT PRIMARY KEY,
    token_id TEXT NOT NULL REFERENCES admin_tokens (id) ON DELETE CASCADE,
    expires_at ${t.int64} NOT NULL
  )${t.keyed};
  CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
  CREATE INDEX console_sessions_token ON console_sessions (token_id);
  `,
    ),
  },
];
