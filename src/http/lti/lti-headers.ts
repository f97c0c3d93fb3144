/**
 * The gateway hands a verified Basic LTI launch to the upstream as `X-LTI-*` headers, one per
 * field, each value percent-encoded UTF-8 (RFC 3986 §2.1: titles and ids may hold any text;
 * decode with `decodeURIComponent`). An absent field sends no header. Every incoming header
 * named `X-LTI-…` (or `X_LTI_…`, which some servers read as the same) is dropped first, on
 * every path, so a caller cannot forge a launch.
 */
import { percentEncode } from '../../protocol/index.ts';
import type { LtiLaunch } from '../../provider/index.ts';

/** The header of each launch field (lower case, as Node keeps them). */
export const LTI_HEADERS = {
  consumerKey: 'x-lti-consumer-key',
  userId: 'x-lti-user-id',
  roles: 'x-lti-roles',
  contextId: 'x-lti-context-id',
  contextTitle: 'x-lti-context-title',
  resourceLinkId: 'x-lti-resource-link-id',
  resourceLinkTitle: 'x-lti-resource-link-title',
  outcomeServiceUrl: 'x-lti-outcome-service-url',
  resultSourcedId: 'x-lti-result-sourcedid',
} as const satisfies Partial<Record<keyof LtiLaunch, string>>;

/** True for `X-LTI-…` in any case, with hyphens or underscores. */
export function isLtiHeader(name: string): boolean {
  return /^x[-_]lti[-_]/i.test(name);
}

/** The headers that carry `launch` to the upstream. */
export function launchHeaders(launch: LtiLaunch): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [field, header] of Object.entries(LTI_HEADERS)) {
    const value = launch[field as keyof typeof LTI_HEADERS];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (typeof text === 'string' && text !== '') headers[header] = percentEncode(text);
  }
  return headers;
}
