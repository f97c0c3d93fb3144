/**
 * The clock purges read. Expiry decides two different things: whether to refuse (a request
 * outside the timestamp window, an expired credential), which the wall clock decides, and
 * whether to forget (a used nonce, an expired temporary credential, a session), which cannot
 * be undone. The wall clock can be stepped (an operator, NTP, a virtual machine resumed). A
 * purge at a clock stepped forward would forget nonces whose requests the window accepts again
 * once the clock steps back: a replay window. A purge at a clock stepped back only keeps rows a
 * little longer.
 *
 * So purges run on the wall clock, but never ahead of the time that has really passed since
 * the provider started (the wall clock then, plus a monotonic clock, which no step moves).
 * After a step forward the purges lag the wall clock by the step until it is undone: nonces
 * and expired rows are kept that much longer, a cost in memory and disk, not in safety. A
 * machine suspended and resumed looks the same (the monotonic clock stands still while it
 * sleeps); a restart ends the lag. docs/security.md ("Figures under faults") names the tests.
 */

/**
 * Milliseconds since the epoch: the wall clock, never ahead of the time seen to pass. Whole
 * milliseconds: PostgreSQL's BIGINT columns refuse the fraction performance.now() brings.
 */
export function purgeClock(wall: () => number, monotonic: () => number): () => number {
  const startedWall = wall();
  const startedMonotonic = monotonic();
  return () => Math.floor(Math.min(wall(), startedWall + (monotonic() - startedMonotonic)));
}
