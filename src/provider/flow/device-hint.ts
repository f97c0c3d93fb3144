/**
 * A token's device hint: the User-Agent of the first verified request made with it, kept so an
 * owner with several tokens of one app (a phone, a laptop) can tell them apart and revoke one
 * (§2.3 "the owner should be able to revoke issued token credentials"). It is what the client
 * says of itself, never proof: shown as a hint, never used to decide anything.
 */

/** The longest device hint kept, in characters: a User-Agent is rarely longer. */
export const DEVICE_HINT_MAX_LENGTH = 200;

/** Control characters (and DEL): never stored, never shown. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/**
 * What is stored of a User-Agent: control characters and runs of spaces made one space,
 * trimmed, at most {@link DEVICE_HINT_MAX_LENGTH} characters; undefined when nothing is left.
 */
export function deviceHintOf(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined) return undefined;
  // Bounded first: a header may be many kilobytes, the hint never is.
  const clean = userAgent
    .slice(0, DEVICE_HINT_MAX_LENGTH * 4)
    .replace(CONTROL, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return undefined;
  const characters = Array.from(clean);
  return characters.length <= DEVICE_HINT_MAX_LENGTH
    ? clean
    : characters.slice(0, DEVICE_HINT_MAX_LENGTH).join('').trimEnd();
}

/** Browsers by the product token that names them, the more specific first (Edge says Chrome too). */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\bChromium\//, 'Chromium'],
  [/\b(?:HeadlessChrome|Chrome|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

/** Systems, the more specific first (Android says Linux, iOS says "like Mac OS X"). */
const SYSTEMS: readonly [RegExp, string][] = [
  [/\bWindows\b/, 'Windows'],
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\b(?:Macintosh|Mac OS X)\b/, 'macOS'],
  [/\b(?:Linux|X11)\b/, 'Linux'],
];

/** A program's own first product token: `curl/8.5.0`, `python-requests/2.31.0`. */
const PRODUCT = /^([A-Za-z][\w.+-]{0,39})\/v?(\d+(?:\.\d+)?)/;

const SHORT_LENGTH = 40;

function firstMatch(hint: string, table: readonly [RegExp, string][]): string | undefined {
  return table.find(([pattern]) => pattern.test(hint))?.[1];
}

/**
 * A device hint in a readable short form: "Firefox on Linux" for a browser, "curl/8.5" for a
 * program naming itself (major and minor version), else its first words. No parsing
 * library: the pages only need to tell one device from another.
 */
export function describeDevice(hint: string): string {
  if (hint.startsWith('Mozilla/')) {
    const browser = firstMatch(hint, BROWSERS);
    const system = firstMatch(hint, SYSTEMS);
    if (browser !== undefined && system !== undefined) return `${browser} on ${system}`;
    if (browser !== undefined) return browser;
    if (system !== undefined) return `A browser on ${system}`;
  }
  const product = PRODUCT.exec(hint);
  if (product !== null) return `${product[1]}/${product[2]}`;
  const characters = Array.from(hint);
  return characters.length <= SHORT_LENGTH
    ? hint
    : `${characters.slice(0, SHORT_LENGTH).join('').trimEnd()}…`;
}
