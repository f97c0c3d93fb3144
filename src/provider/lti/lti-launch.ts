/**
 * IMS Basic LTI 1.1 launches, read from the request: a launch is a form POST from the LMS
 * (the tool consumer), signed by it alone (two-legged) like any other request, so it goes
 * through the same verification (window, nonce store, problem codes). This module has one
 * job: check that a request is shaped as a launch (before verification, no I/O) and signed
 * as one (after the signature), read its fields into a typed launch, and say where a refused
 * launch may send the person. The steps run in the verification pipeline
 * (verify/pipeline.ts).
 * @see https://www.imsglobal.org/specs/ltiv1p1/implementation-guide
 */
import { isFormContentType, OAuthError, parseFormUrlEncoded } from '../../protocol/index.ts';
import type { SignatureMethod } from '../../protocol/index.ts';
import type { IncomingRequest } from '../request.ts';

export const LTI_MESSAGE_TYPE = 'basic-lti-launch-request';
export const LTI_VERSION = 'LTI-1p0';

/** A verified Basic LTI launch, as the tool sees it. Absent optional fields are undefined. */
export interface LtiLaunch {
  /** The LMS's client key (`oauth_consumer_key`). */
  readonly consumerKey: string;
  /** `resource_link_id`: the placement of the tool in the LMS (required). */
  readonly resourceLinkId: string;
  readonly resourceLinkTitle: string | undefined;
  /** `user_id`: the LMS's opaque id of the person launching. */
  readonly userId: string | undefined;
  /** `roles`, split on commas (`Instructor`, `Learner`, or URNs). */
  readonly roles: readonly string[];
  readonly contextId: string | undefined;
  readonly contextTitle: string | undefined;
  /** `lis_outcome_service_url`: where grades are posted (Basic Outcomes). */
  readonly outcomeServiceUrl: string | undefined;
  /** `lis_result_sourcedid`: which grade cell a result is for. */
  readonly resultSourcedId: string | undefined;
  /** `launch_presentation_return_url`: where the LMS wants the person sent back. */
  readonly returnUrl: string | undefined;
}

/** The launch's form fields, first value of each name. */
export type LaunchFields = ReadonlyMap<string, string>;

/**
 * Checks, before any lookup, that the request is a Basic LTI launch: a POST with a form body,
 * `lti_message_type=basic-lti-launch-request`, `lti_version=LTI-1p0`, a `resource_link_id`.
 * Throws OAuthError (400 parameter_rejected / parameter_absent) otherwise.
 */
export function checkLaunchRequest(request: IncomingRequest): LaunchFields {
  if (request.method !== 'POST' || !isFormContentType(request.contentType)) {
    throw new OAuthError(
      'parameter_rejected',
      'An LTI launch is a POST with an application/x-www-form-urlencoded body.',
    );
  }
  const fields = formFields(request.body);
  if (fields === undefined) {
    throw new OAuthError('parameter_rejected', 'The launch form body is not well-formed.');
  }
  const messageType = fields.get('lti_message_type');
  if (messageType === undefined) {
    throw new OAuthError('parameter_absent', 'Missing: lti_message_type.');
  }
  if (messageType !== LTI_MESSAGE_TYPE) {
    throw new OAuthError(
      'parameter_rejected',
      `lti_message_type must be ${LTI_MESSAGE_TYPE}; this tool accepts only launches.`,
    );
  }
  const version = fields.get('lti_version');
  if (version === undefined) throw new OAuthError('parameter_absent', 'Missing: lti_version.');
  if (version !== LTI_VERSION) {
    throw new OAuthError('parameter_rejected', `lti_version must be ${LTI_VERSION}.`);
  }
  if ((fields.get('resource_link_id') ?? '') === '') {
    throw new OAuthError('parameter_absent', 'Missing: resource_link_id.');
  }
  return fields;
}

/**
 * Once the request verified: a launch is signed with a method that has a nonce (PLAINTEXT
 * carries none, so a launch could be replayed), by the consumer alone (two-legged).
 */
export function checkLaunchSigner(method: SignatureMethod, token: string | undefined): void {
  if (!method.usesBaseString) {
    throw new OAuthError(
      'signature_method_rejected',
      'An LTI launch is signed with HMAC-SHA1 (a method with a nonce), not PLAINTEXT.',
    );
  }
  if (token !== undefined) {
    throw new OAuthError(
      'parameter_rejected',
      'An LTI launch is signed by the consumer alone; it takes no oauth_token.',
      { advice: { oauth_parameters_rejected: 'oauth_token' } },
    );
  }
}

/** The typed launch, once the request's signature, window and nonce were checked. */
export function readLaunch(fields: LaunchFields, consumerKey: string): LtiLaunch {
  const optional = (name: string) => {
    const value = fields.get(name);
    return value === undefined || value === '' ? undefined : value;
  };
  const roles = (fields.get('roles') ?? '')
    .split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');
  return {
    consumerKey,
    resourceLinkId: fields.get('resource_link_id') ?? '',
    resourceLinkTitle: optional('resource_link_title'),
    userId: optional('user_id'),
    roles,
    contextId: optional('context_id'),
    contextTitle: optional('context_title'),
    outcomeServiceUrl: optional('lis_outcome_service_url'),
    resultSourcedId: optional('lis_result_sourcedid'),
    returnUrl: optional('launch_presentation_return_url'),
  };
}

/**
 * A launch refused after its signature was verified over the form (HMAC or RSA: the base
 * string covers the body): its `launch_presentation_return_url` is the LMS's own, so the person
 * may be sent back there with the error (`returnUrl`), as the LTI 1.1 Implementation Guide
 * describes. A launch refused before that (unsigned, forged, unknown key, over its failure
 * limit) or signed with PLAINTEXT (the signature does not cover the form) stays a plain
 * OAuthError: its return URL is anyone's, and following it would be an open redirect.
 */
export class LaunchRefusal extends OAuthError {
  readonly returnUrl: URL;

  constructor(error: OAuthError, returnUrl: URL) {
    super(error.problem, error.message, {
      status: error.status,
      advice: error.advice,
      ...(error.retryAfterSeconds === undefined
        ? {}
        : { retryAfterSeconds: error.retryAfterSeconds }),
      cause: error,
    });
    this.returnUrl = returnUrl;
  }
}

/** `error`, carrying the launch's return URL when its verified form names one. */
export function refusedLaunch(error: OAuthError, fields: LaunchFields): OAuthError {
  const returnUrl = launchReturnUrl(fields);
  return returnUrl === undefined ? error : new LaunchRefusal(error, returnUrl);
}

/**
 * `launch_presentation_return_url` when the form names one and it is an absolute http(s) URL;
 * undefined otherwise (the tool then shows its own error page). Only the scheme is checked,
 * so the answer is a plain redirect and never a script; only a verified form is read.
 */
function launchReturnUrl(fields: LaunchFields): URL | undefined {
  const raw = fields.get('launch_presentation_return_url');
  if (raw === undefined || raw === '') return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The fields a launch is read from; each may appear once (two values would be ambiguous). */
const READ_FIELDS: ReadonlySet<string> = new Set([
  'lti_message_type',
  'lti_version',
  'resource_link_id',
  'resource_link_title',
  'user_id',
  'roles',
  'context_id',
  'context_title',
  'lis_outcome_service_url',
  'lis_result_sourcedid',
  'launch_presentation_return_url',
]);

function formFields(body: string | undefined): Map<string, string> | undefined {
  let pairs;
  try {
    pairs = parseFormUrlEncoded(body ?? '');
  } catch {
    return undefined;
  }
  const fields = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (!fields.has(name)) fields.set(name, value);
    else if (READ_FIELDS.has(name)) {
      throw new OAuthError('parameter_rejected', `The launch sends ${name} more than once.`);
    }
  }
  return fields;
}
