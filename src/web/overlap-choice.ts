/**
 * Rotation with overlap on the pages (provider/clients/rotation.ts): the developer portal and
 * the console offer a short fixed list of overlaps, so a forged value is refused by the route
 * schema (400) before the provider sees it, and show the overlaps still running.
 */
import type { Provider } from '../provider/index.ts';
import { field } from './form.ts';
import { formatTime } from './format.ts';

/** The overlaps offered, in seconds as posted; the first is the default. */
export const OVERLAP_CHOICES = [
  { value: '0', label: 'No overlap: the current secret stops working now' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days' },
] as const;

/**
 * The schema parts of a rotation's form (spread into the route's schema): a form body whose
 * `overlap` is one of the choices (absent: no overlap).
 */
export const rotationForm = {
  // For /openapi.json: the form is posted form-encoded, not as JSON.
  consumes: ['application/x-www-form-urlencoded'],
  body: {
    type: 'object',
    properties: {
      overlap: {
        type: 'string',
        enum: OVERLAP_CHOICES.map((choice) => choice.value),
        description: 'Seconds the current secret stays valid beside the new one; 0 by default.',
      },
      _csrf: { type: 'string' },
    },
  },
} as const;

/** The overlap posted, in seconds (the schema let through only the choices). */
export function overlapSecondsOf(body: unknown): number {
  const value = field(body, 'overlap');
  return value === '' ? 0 : Number(value);
}

/**
 * The client's overlaps still running, for a page: what stays valid, until when, and when it
 * last signed an accepted request (whether anything still uses it).
 */
export async function runningOverlaps(provider: Provider, key: string) {
  return (await provider.clients.overlaps(key)).map((overlap) => ({
    what: overlap.kind === 'secret' ? 'secret' : 'public key',
    until: formatTime(overlap.until),
    lastUsed:
      overlap.lastUsedAt === null
        ? 'no use recorded yet'
        : `last used ${formatTime(overlap.lastUsedAt)}`,
  }));
}

/** When the previous secret stops being accepted, for the page with the new one; or null. */
export async function previousSecretUntil(provider: Provider, key: string) {
  const overlap = (await provider.clients.overlaps(key)).find((o) => o.kind === 'secret');
  return overlap === undefined ? null : formatTime(overlap.until);
}
