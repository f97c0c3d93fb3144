/**
 * Request ids for the logs: a random prefix per process (unique across instances) and a
 * counter, so no randomness is drawn per request on the hot path.
 */
import { randomBytes } from 'node:crypto';

export function createRequestIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let next = 0;
  return () => `${prefix}-${(next++).toString(36)}`;
}
