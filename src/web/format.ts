/** Words and dates for people: durations, times, and the lifetimes an owner may choose. */

const units: ReadonlyArray<readonly [number, string]> = [
  [365 * 86400, 'year'],
  [86400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** 3600 → "1 hour", 7 * 86400 → "7 days"; the largest unit that divides the duration evenly. */
export function formatDuration(seconds: number): string {
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? '' : 's'}`;
    }
  }
  const minutes = Math.max(1, Math.round(seconds / 60));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

// Made on first use: building it loads ICU's locale data (about 40 ms), which `serve` would
// otherwise pay at start-up before any page is asked for.
let dateFormat: Intl.DateTimeFormat | undefined;

/** A moment as "3 Mar 2025, 14:05 UTC"; the server cannot know the reader's time zone without script. */
export function formatTime(ms: number): string {
  dateFormat ??= new Intl.DateTimeFormat('en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  });
  return `${dateFormat.format(new Date(ms))} UTC`;
}

export interface LifetimeChoice {
  /** Seconds, or '' for the server's default. */
  readonly value: string;
  readonly label: string;
}

const shorter = [3600, 86400, 7 * 86400, 30 * 86400, 90 * 86400, 365 * 86400];

/** The consent page's choices: the default first, then every standard lifetime shorter than it. */
export function lifetimeChoices(defaultLifetime: number | null): LifetimeChoice[] {
  const first = {
    value: '',
    label:
      defaultLifetime === null
        ? 'Until you revoke it'
        : `${formatDuration(defaultLifetime)} (or until you revoke it)`,
  };
  const rest = shorter
    .filter((seconds) => defaultLifetime === null || seconds < defaultLifetime)
    .map((seconds) => ({ value: String(seconds), label: formatDuration(seconds) }));
  return [first, ...rest];
}

/**
 * The lifetime posted by the consent form: undefined for the default, seconds otherwise, or
 * null when the value is not one the page offered (the form was tampered with).
 */
export function parseLifetime(
  value: unknown,
  defaultLifetime: number | null,
): number | undefined | null {
  if (value === undefined || value === '') return undefined;
  const offered = lifetimeChoices(defaultLifetime).some((choice) => choice.value === value);
  return offered ? Number(value) : null;
}

/** Only http(s) links are ever rendered as links (a registered website is checked, but be sure). */
export function safeLink(
  url: string | null,
): { readonly href: string; readonly host: string } | null {
  if (url === null) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    return { href: parsed.href, host: parsed.host };
  } catch {
    return null;
  }
}
