/**
 * LTI 1.1 Basic Outcomes, the tool's side: post, read or delete the grade of one launch at the
 * LMS's `lis_outcome_service_url`, for its `lis_result_sourcedid`. Each request is a POX XML
 * document signed by the tool's key and secret at that LMS (two-legged) in the Authorization
 * header, with `oauth_body_hash` (the SHA-1 of the body, base64) covering the XML.
 * @see https://www.imsglobal.org/specs/ltiv1p1/implementation-guide (§6, Basic Outcomes)
 * @example
 * const target = { serviceUrl: launch.outcomeServiceUrl, sourcedId: launch.resultSourcedId,
 *   client: { key: 'tool-key-at-the-lms', secret } };
 * await replaceResult(target, 0.92);
 * const { score } = await readResult(target);
 */
import { randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { signRequest } from './sign.ts';
import type { ClientCredentials } from './sign.ts';

/** Where a launch's grade lives, and the credentials the tool signs with at that LMS. */
export interface OutcomeTarget {
  /** `lis_outcome_service_url` of the launch. */
  readonly serviceUrl: string | URL;
  /** `lis_result_sourcedid` of the launch. */
  readonly sourcedId: string;
  readonly client: ClientCredentials;
  /** Defaults to HMAC-SHA1, the method LTI 1.1 requires. */
  readonly signatureMethod?: string | undefined;
  /** The fetch to send with; the global one by default. */
  readonly fetch?: typeof fetch | undefined;
}

export type OutcomeOperation = 'replaceResult' | 'readResult' | 'deleteResult';

/** The LMS's answer (`imsx_statusInfo`), and the score a readResult returned. */
export interface OutcomeResponse {
  /** `success`, `processing`, `failure` or `unsupported`. */
  readonly codeMajor: string;
  readonly severity: string | undefined;
  readonly description: string | undefined;
  /** The LMS's identifier of its answer. */
  readonly messageIdentifier: string | undefined;
  /** The request's `imsx_messageIdentifier`, echoed. */
  readonly messageRefIdentifier: string | undefined;
  readonly operation: string | undefined;
  /** readResult: the score (0.0 to 1.0), undefined when the LMS has none. */
  readonly score: number | undefined;
}

/** The LMS refused (HTTP status not 2xx, or imsx_codeMajor other than success). */
export class OutcomeError extends Error {
  override readonly name = 'OutcomeError';
  /** The HTTP status of the LMS's answer. */
  readonly status: number;
  /** The parsed POX answer, when there was one. */
  readonly response: OutcomeResponse | undefined;

  constructor(message: string, status: number, response?: OutcomeResponse) {
    super(message);
    this.status = status;
    this.response = response;
  }
}

export interface ReplaceResultOptions {
  /** The score's language tag (default `en`): how the LMS reads the decimal. */
  readonly language?: string | undefined;
}

/** Sets the launch's grade to `score`, a number from 0.0 to 1.0. */
export function replaceResult(
  target: OutcomeTarget,
  score: number,
  options: ReplaceResultOptions = {},
): Promise<OutcomeResponse> {
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
    throw new RangeError('An LTI 1.1 score is a number from 0.0 to 1.0.');
  }
  return sendOutcome(target, 'replaceResult', { score, language: options.language ?? 'en' });
}

/** Reads the launch's grade: `score` is undefined when the LMS holds none. */
export function readResult(target: OutcomeTarget): Promise<OutcomeResponse> {
  return sendOutcome(target, 'readResult');
}

/** Removes the launch's grade. */
export function deleteResult(target: OutcomeTarget): Promise<OutcomeResponse> {
  return sendOutcome(target, 'deleteResult');
}

/** A POX request document for one operation (built by hand: small and fixed, values escaped). */
export function outcomeRequestXml(
  operation: OutcomeOperation,
  sourcedId: string,
  messageIdentifier: string,
  result?: { readonly score: number; readonly language: string },
): string {
  const resultXml =
    result === undefined
      ? ''
      : `
        <result>
          <resultScore>
            <language>${escapeXml(result.language)}</language>
            <textString>${String(result.score)}</textString>
          </resultScore>
        </result>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<imsx_POXEnvelopeRequest xmlns="http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0">
  <imsx_POXHeader>
    <imsx_POXRequestHeaderInfo>
      <imsx_version>V1.0</imsx_version>
      <imsx_messageIdentifier>${escapeXml(messageIdentifier)}</imsx_messageIdentifier>
    </imsx_POXRequestHeaderInfo>
  </imsx_POXHeader>
  <imsx_POXBody>
    <${operation}Request>
      <resultRecord>
        <sourcedGUID>
          <sourcedId>${escapeXml(sourcedId)}</sourcedId>
        </sourcedGUID>${resultXml}
      </resultRecord>
    </${operation}Request>
  </imsx_POXBody>
</imsx_POXEnvelopeRequest>
`;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
});

type Node = { readonly [name: string]: unknown };

function child(node: unknown, ...path: string[]): unknown {
  let current = node;
  for (const name of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Node)[name];
    if (Array.isArray(current)) current = current[0];
  }
  return current;
}

function text(node: unknown, ...path: string[]): string | undefined {
  const value = child(node, ...path);
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * Reads a POX response document (`imsx_POXEnvelopeResponse`). Throws OutcomeError when it
 * is not one. A DOCTYPE is refused: a POX document has none, and entities are not expanded.
 */
export function parseOutcomeResponse(xml: string, status = 200): OutcomeResponse {
  if (/<!DOCTYPE/i.test(xml)) {
    throw new OutcomeError('The outcome service answered with a DOCTYPE; refused.', status);
  }
  let document: unknown;
  try {
    document = parser.parse(xml);
  } catch {
    throw new OutcomeError('The outcome service did not answer with XML.', status);
  }
  const envelope = child(document, 'imsx_POXEnvelopeResponse');
  const info = child(envelope, 'imsx_POXHeader', 'imsx_POXResponseHeaderInfo');
  const codeMajor = text(info, 'imsx_statusInfo', 'imsx_codeMajor');
  if (codeMajor === undefined) {
    throw new OutcomeError('The outcome service did not answer with a POX response.', status);
  }
  const rawScore = text(
    envelope,
    'imsx_POXBody',
    'readResultResponse',
    'result',
    'resultScore',
    'textString',
  );
  const score = rawScore === undefined || rawScore === '' ? undefined : Number(rawScore);
  return {
    codeMajor,
    severity: text(info, 'imsx_statusInfo', 'imsx_severity'),
    description: text(info, 'imsx_statusInfo', 'imsx_description'),
    messageIdentifier: text(info, 'imsx_messageIdentifier'),
    messageRefIdentifier: text(info, 'imsx_statusInfo', 'imsx_messageRefIdentifier'),
    operation: text(info, 'imsx_statusInfo', 'imsx_operationRefIdentifier'),
    score: score === undefined || Number.isNaN(score) ? undefined : score,
  };
}

async function sendOutcome(
  target: OutcomeTarget,
  operation: OutcomeOperation,
  result?: { readonly score: number; readonly language: string },
): Promise<OutcomeResponse> {
  const body = outcomeRequestXml(operation, target.sourcedId, randomUUID(), result);
  const signed = signRequest({
    method: 'POST',
    url: target.serviceUrl,
    headers: { 'Content-Type': 'application/xml' },
    body,
    client: target.client,
    signatureMethod: target.signatureMethod,
    bodyHash: true,
  });
  const response = await (target.fetch ?? fetch)(signed.url, {
    method: signed.method,
    headers: signed.headers,
    body,
    redirect: 'manual',
  });
  const answer = await response.text();
  if (response.status < 200 || response.status > 299) {
    throw new OutcomeError(
      `The outcome service answered ${response.status}: ${answer.slice(0, 200)}`,
      response.status,
    );
  }
  const parsed = parseOutcomeResponse(answer, response.status);
  if (parsed.codeMajor !== 'success') {
    throw new OutcomeError(
      `${operation} was not accepted (${parsed.codeMajor})${parsed.description === undefined ? '' : `: ${parsed.description}`}`,
      response.status,
      parsed,
    );
  }
  return parsed;
}

function escapeXml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}
