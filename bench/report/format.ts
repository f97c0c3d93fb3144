/** Number formats shared by the reports. */

/** A whole number with thousands separators: 51,100. */
export const n = (x: number): string => Math.round(x).toLocaleString('en-US');

/** Milliseconds to about three significant digits: 0.912, 4.41, 91.4, 682. */
export const ms = (x: number): string =>
  x >= 100 ? String(Math.round(x)) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
