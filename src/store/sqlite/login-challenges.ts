/**
 * Login challenges in SQLite: sign-ins handed to an identity provider or a login app. Every
 * transition is one conditional UPDATE … RETURNING whose WHERE clause is the whole
 * precondition, so a challenge is accepted, rejected or used once only, by any process.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { LoginChallengeStore, NewLoginChallenge } from '../types.ts';
import { method } from './errors.ts';
import { fromRow } from './row.ts';
import type { Row } from './row.ts';

export function sqliteLoginChallenges(db: DatabaseSync): LoginChallengeStore {
  const insert = db.prepare(
    `INSERT INTO login_challenges
       (id, kind, browser, origin, next, oauth_token, data, state, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
  );
  const select = db.prepare('SELECT * FROM login_challenges WHERE id = ?');
  const selectByVerifier = db.prepare('SELECT * FROM login_challenges WHERE verifier = ?');
  const accept = db.prepare(
    `UPDATE login_challenges SET state = 'accepted', verifier = ?, subject = ?, name = ?
     WHERE id = ? AND state = 'pending' AND expires_at > ? RETURNING *`,
  );
  const reject = db.prepare(
    `UPDATE login_challenges SET state = 'rejected'
     WHERE id = ? AND state = 'pending' AND expires_at > ? RETURNING *`,
  );
  const consumePending = db.prepare(
    `UPDATE login_challenges SET state = 'used'
     WHERE id = ? AND state = 'pending' AND browser = ? AND expires_at > ? RETURNING *`,
  );
  const consumeAccepted = db.prepare(
    `UPDATE login_challenges SET state = 'used'
     WHERE verifier = ? AND state = 'accepted' AND browser = ? AND expires_at > ? RETURNING *`,
  );
  const purge = db.prepare('DELETE FROM login_challenges WHERE expires_at < ?');
  const toChallenge = (row: Row | undefined) =>
    row === undefined ? undefined : fromRow.toLoginChallenge(row);

  return {
    create: method((challenge: NewLoginChallenge) => {
      insert.run(
        challenge.id,
        challenge.kind,
        challenge.browser,
        challenge.origin,
        challenge.next,
        challenge.oauthToken,
        challenge.data,
        challenge.createdAt,
        challenge.expiresAt,
      );
    }),
    find: method((id: string) => toChallenge(select.get(id))),
    findByVerifier: method((verifier: string) => toChallenge(selectByVerifier.get(verifier))),
    accept: method((id, outcome, now) =>
      toChallenge(accept.get(outcome.verifier, outcome.subject, outcome.name, id, now)),
    ),
    reject: method((id: string, now: number) => toChallenge(reject.get(id, now))),
    consume: method((from, browser, now) =>
      toChallenge(
        from.state === 'pending'
          ? consumePending.get(from.id, browser, now)
          : consumeAccepted.get(from.verifier, browser, now),
      ),
    ),
    purgeExpired: method((now: number) => Number(purge.run(now).changes)),
  };
}
