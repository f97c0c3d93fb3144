/**
 * The live nonces (RFC 5849 §3.3) in memory, so a replay check never reads the disk: 64-bit
 * hashes (src/store/nonce-hash.ts) grouped by the request's timestamp second, each group an
 * open-addressing hash set over an Int32Array (8 bytes a slot), kept until the latest
 * expiry of its entries.
 *
 * A replay has the same key, hence the same timestamp, so it is always looked up in the
 * group that holds its first use, whatever timestamp window either use was checked under
 * (a restart with another window, or another process on the same file). Purging drops whole
 * groups whose expiry has passed: no per-entry work, so no pause however many nonces
 * expire at once.
 *
 * Memory is the point of the layout (the budget: at most 48 bytes per live nonce, disk and
 * memory together): a group is at most 80 % full and grows by half, so its slots are 53–80 %
 * used, 10–15 bytes per nonce. Doubling at 75 % would be 8–21 bytes, and 20 at a steady
 * 26,000 requests a second.
 */

const INITIAL_SLOTS = 16;
/** Grow past 4/5 full… */
const MAX_LOAD_NUMERATOR = 4;
const MAX_LOAD_DENOMINATOR = 5;
/** …by half again. */
const GROWTH = 1.5;

/** One timestamp second's hashes: linear probing; the all-zero hash is kept as a flag. */
class HashSet64 {
  /** The latest expiry (seconds) of the hashes in the set: the set lives until then. */
  expiresAt = 0;

  private slots = new Int32Array(INITIAL_SLOTS * 2);
  private capacity = INITIAL_SLOTS;
  private count = 0;
  private hasZero = false;

  get size(): number {
    return this.count + (this.hasZero ? 1 : 0);
  }

  /** The first slot to probe: the low half, mixed, scaled to any capacity (no modulo). */
  private home(low: number): number {
    return Math.floor(((Math.imul(low, 0x9e3779b1) >>> 0) * this.capacity) / 4294967296);
  }

  /** The slot holding the hash, or the empty slot where it would go (linear probing). */
  private slotOf(high: number, low: number): number {
    const slots = this.slots;
    const capacity = this.capacity;
    let at = this.home(low);
    for (;;) {
      const h = slots[at * 2]!;
      const l = slots[at * 2 + 1]!;
      if ((h === 0 && l === 0) || (h === high && l === low)) return at;
      at = at + 1 === capacity ? 0 : at + 1;
    }
  }

  private occupied(at: number): boolean {
    return this.slots[at * 2] !== 0 || this.slots[at * 2 + 1] !== 0;
  }

  /** Adds the hash; false when it was already there. */
  add(high: number, low: number): boolean {
    if (high === 0 && low === 0) {
      if (this.hasZero) return false;
      this.hasZero = true;
      return true;
    }
    const at = this.slotOf(high, low);
    if (this.occupied(at)) return false;
    this.slots[at * 2] = high;
    this.slots[at * 2 + 1] = low;
    this.count += 1;
    if (this.count * MAX_LOAD_DENOMINATOR > this.capacity * MAX_LOAD_NUMERATOR) this.grow();
    return true;
  }

  has(high: number, low: number): boolean {
    if (high === 0 && low === 0) return this.hasZero;
    return this.occupied(this.slotOf(high, low));
  }

  private grow(): void {
    const old = this.slots;
    this.capacity = Math.ceil(this.capacity * GROWTH);
    this.slots = new Int32Array(this.capacity * 2);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const high = old[i]!;
      const low = old[i + 1]!;
      if (high !== 0 || low !== 0) this.add(high, low);
    }
  }
}

export class NonceIndex {
  private readonly groups = new Map<number, HashSet64>();
  private count = 0;

  /** Live entries. */
  get size(): number {
    return this.count;
  }

  /**
   * Adds a hash (high signed, low unsigned or signed: the same 32 bits) of a request with
   * this timestamp, kept at least until `expiresAt`; false when present.
   */
  add(timestamp: number, expiresAt: number, high: number, low: number): boolean {
    let group = this.groups.get(timestamp);
    if (group === undefined) {
      group = new HashSet64();
      this.groups.set(timestamp, group);
    }
    if (expiresAt > group.expiresAt) group.expiresAt = expiresAt;
    const added = group.add(high | 0, low | 0);
    if (added) this.count += 1;
    return added;
  }

  has(timestamp: number, high: number, low: number): boolean {
    return this.groups.get(timestamp)?.has(high | 0, low | 0) ?? false;
  }

  /** Drops every entry that expired before `now` (seconds); returns how many. */
  purge(now: number): number {
    let dropped = 0;
    for (const [timestamp, group] of this.groups) {
      if (group.expiresAt >= now) continue;
      dropped += group.size;
      this.groups.delete(timestamp);
    }
    this.count -= dropped;
    return dropped;
  }
}
