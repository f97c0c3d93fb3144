/**
 * Login challenges in either SQL store, through its runner (runner.ts): sign-ins handed to an
 * identity provider or a login app, shared by every process and instance. Every transition is
 * one conditional UPDATE … RETURNING whose WHERE clause is the whole precondition, so a
 * challenge is accepted, rejected or used once only (SQLite holds the write lock for the
 * statement; in PostgreSQL the row lock makes a racing second caller re-check the condition
 * after the first commits).
 */
import type { LoginChallengeStore, NewLoginChallenge } from '../types.ts';
import type { Mappers, SqlRunner, Values } from './runner.ts';

export function sqlLoginChallenges(sql: SqlRunner, fromRow: Mappers): LoginChallengeStore {
  const challenges = sql.table('login_challenges');

  async function one(text: string, values: Values) {
    const row = await sql.one(text, values);
    return row === undefined ? undefined : fromRow.toLoginChallenge(row);
  }

  return {
    async create(challenge: NewLoginChallenge) {
      await sql.run(
        `INSERT INTO ${challenges}
           (id, kind, browser, origin, next, oauth_token, data, state, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9)`,
        [
          challenge.id,
          challenge.kind,
          challenge.browser,
          challenge.origin,
          challenge.next,
          challenge.oauthToken,
          challenge.data,
          challenge.createdAt,
          challenge.expiresAt,
        ],
      );
    },
    find: (id) => one(`SELECT * FROM ${challenges} WHERE id = $1`, [id]),
    findByVerifier: (verifier) =>
      one(`SELECT * FROM ${challenges} WHERE verifier = $1`, [verifier]),
    accept: (id, outcome, now) =>
      one(
        `UPDATE ${challenges} SET state = 'accepted', verifier = $2, subject = $3, name = $4
         WHERE id = $1 AND state = 'pending' AND expires_at > $5 RETURNING *`,
        [id, outcome.verifier, outcome.subject, outcome.name, now],
      ),
    reject: (id, now) =>
      one(
        `UPDATE ${challenges} SET state = 'rejected'
         WHERE id = $1 AND state = 'pending' AND expires_at > $2 RETURNING *`,
        [id, now],
      ),
    consume: (from, browser, now) =>
      from.state === 'pending'
        ? one(
            `UPDATE ${challenges} SET state = 'used'
             WHERE id = $1 AND state = 'pending' AND browser = $2 AND expires_at > $3
             RETURNING *`,
            [from.id, browser, now],
          )
        : one(
            `UPDATE ${challenges} SET state = 'used'
             WHERE verifier = $1 AND state = 'accepted' AND browser = $2 AND expires_at > $3
             RETURNING *`,
            [from.verifier, browser, now],
          ),
    purgeExpired: (now: number) =>
      sql.run(`DELETE FROM ${challenges} WHERE expires_at < $1`, [now]),
  };
}
