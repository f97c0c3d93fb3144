/** Formats shared by the reports. */

/** A whole number with thousands separators: 51,100. */
export const n = (x: number): string => Math.round(x).toLocaleString('en-US');

/** Milliseconds to about three significant digits: 0.912, 4.41, 91.4, 682. */
export const ms = (x: number): string =>
  x >= 100 ? String(Math.round(x)) : x >= 10 ? x.toFixed(1) : x.toFixed(2);

/** Text made safe for an SVG's text nodes and attribute values. */
export const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
