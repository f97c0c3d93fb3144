/**
 * A log-linear latency histogram in the manner of HdrHistogram: exact below 256 µs, then
 * 128 sub-buckets per power of two (under 1 % error), fixed memory, O(1) record.
 */
const SUB_BITS = 7;
const SUB_COUNT = 1 << SUB_BITS;
const LINEAR = SUB_COUNT * 2;
const SIZE = LINEAR + 26 * SUB_COUNT; // up to 2^33 µs, far beyond any run

export interface LatencySummary {
  /** Milliseconds. */
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
  readonly count: number;
}

export class Histogram {
  readonly counts = new Float64Array(SIZE);
  count = 0;
  sum = 0;
  max = 0;

  /** Records one value in microseconds. */
  record(micros: number): void {
    const v = micros < 0 ? 0 : Math.min(Math.round(micros), 0x7fffffff);
    this.counts[indexOf(v)]! += 1;
    this.count++;
    this.sum += v;
    if (v > this.max) this.max = v;
  }

  merge(other: Histogram): void {
    for (let i = 0; i < SIZE; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    this.sum += other.sum;
    if (other.max > this.max) this.max = other.max;
  }

  /** The value (µs) at quantile q in [0, 1], reported as the middle of its bucket. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(middleOf(i), this.max);
    }
    return this.max;
  }

  summary(): LatencySummary {
    const ms = (micros: number) => Math.round(micros) / 1000;
    return {
      p50: ms(this.quantile(0.5)),
      p90: ms(this.quantile(0.9)),
      p99: ms(this.quantile(0.99)),
      p999: ms(this.quantile(0.999)),
      max: ms(this.max),
      mean: this.count === 0 ? 0 : ms(this.sum / this.count),
      count: this.count,
    };
  }
}

function indexOf(v: number): number {
  if (v < LINEAR) return v;
  const exponent = 31 - Math.clz32(v);
  const shift = exponent - SUB_BITS;
  const index = LINEAR + (shift - 1) * SUB_COUNT + ((v >>> shift) - SUB_COUNT);
  return index < SIZE ? index : SIZE - 1;
}

function middleOf(index: number): number {
  if (index < LINEAR) return index;
  const k = index - LINEAR;
  const shift = Math.floor(k / SUB_COUNT) + 1;
  const mantissa = (k % SUB_COUNT) + SUB_COUNT;
  return mantissa * 2 ** shift + 2 ** (shift - 1);
}
