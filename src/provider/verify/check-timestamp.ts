/**
 * A verification step (pipeline.ts): the timestamp is within the window either way (§3.3), so
 * nonces need only be kept for the window. A refusal carries `oauth_acceptable_timestamps`
 * (Problem Reporting).
 */
import { OAuthError } from '../../protocol/index.ts';

export function checkTimestamp(
  timestamp: number | undefined,
  nowSeconds: number,
  windowSeconds: number,
): void {
  if (timestamp === undefined) return; // PLAINTEXT may omit it (§3.4.4)
  if (Math.abs(nowSeconds - timestamp) <= windowSeconds) return;
  const range = `${nowSeconds - windowSeconds}-${nowSeconds + windowSeconds}`;
  const hint =
    timestamp > 1e11
      ? ' It looks like milliseconds; send seconds since the epoch.'
      : ' Check the client clock.';
  throw new OAuthError(
    'timestamp_refused',
    `oauth_timestamp is outside the accepted window (${range}).${hint}`,
    {
      advice: { oauth_acceptable_timestamps: range },
    },
  );
}
