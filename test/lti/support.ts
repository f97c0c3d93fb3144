// The LMS side of LTI 1.1, played by implementations Latchkey did not write: Python oauthlib's
// signature-only client (oauthlib-sign.py) and the `ims-lti` npm package (its HMAC-SHA1
// signer for launches, its OutcomeService for grades). Also an LMS's grade book: a Fastify
// app whose outcomes endpoint is protected by Latchkey's middleware, body hash required.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import { encodeForm } from '../../src/client/index.ts';
import { latchkeyFastify } from '../../src/http/middleware/fastify.ts';
import type { Provider } from '../../src/provider/index.ts';

const script = fileURLToPath(new URL('./oauthlib-sign.py', import.meta.url));
const require = createRequire(import.meta.url);

/** The Python with oauthlib (a pyenv shim may lack the Debian module), or why there is none. */
export function locatePython(): { command: string } | { problem: string } {
  for (const command of [process.env.LATCHKEY_PYTHON ?? 'python3', '/usr/bin/python3']) {
    const run = spawnSync(command, ['-c', 'import oauthlib'], { stdio: 'ignore', timeout: 20_000 });
    if (run.status === 0) return { command };
  }
  return { problem: 'python3 with oauthlib not found (bash .ci/install-interop.sh installs it)' };
}

export interface SignedByPython {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export type Pairs = readonly (readonly [string, string])[];

/** Signs a launch (form, body transmission) or an outcome (XML, header + body hash). */
export function oauthlibSign(
  python: string,
  request:
    | { kind: 'launch'; url: string; key: string; secret: string; params: Pairs }
    | { kind: 'outcome'; url: string; key: string; secret: string; xml: string },
): SignedByPython {
  const run = spawnSync(python, [script], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (run.status !== 0) throw new Error(`oauthlib-sign.py failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as SignedByPython;
}

interface ImsLtiSigner {
  build_signature_raw(
    url: string,
    parsedUrl: unknown,
    method: string,
    params: Record<string, string>,
    secret: string,
  ): string;
}

/**
 * A launch form signed by ims-lti's HMAC-SHA1 (the package has no consumer; its signer is the
 * one its tool side checks launches with). The LMS adds the protocol parameters itself.
 */
export function imsLtiSignLaunch(
  url: string,
  key: string,
  secret: string,
  params: Readonly<Record<string, string>>,
  nonce: string,
): string {
  const Signer = require('ims-lti/lib/hmac-sha1.js') as new () => ImsLtiSigner;
  const all: Record<string, string> = {
    ...params,
    oauth_consumer_key: key,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_nonce: nonce,
    oauth_version: '1.0',
    oauth_callback: 'about:blank',
  };
  const signature = new Signer().build_signature_raw(
    url,
    { query: Object.fromEntries(new URL(url).searchParams) },
    'POST',
    all,
    secret,
  );
  return encodeForm(Object.entries({ ...all, oauth_signature: signature }));
}

interface ImsOutcomeService {
  send_replace_result(score: number, callback: (error: Error | null, ok: boolean) => void): void;
}

/** ims-lti's tool side posts a grade (replaceResult, header-signed with oauth_body_hash). */
export function imsLtiReplaceResult(
  serviceUrl: string,
  sourcedId: string,
  key: string,
  secret: string,
  score: number,
): Promise<boolean> {
  const { OutcomeService } = require('ims-lti/lib/extensions/outcomes.js') as {
    OutcomeService: new (options: Record<string, unknown>) => ImsOutcomeService;
  };
  const service = new OutcomeService({
    consumer_key: key,
    consumer_secret: secret,
    service_url: serviceUrl,
    source_did: sourcedId,
  });
  return new Promise((resolve, reject) => {
    service.send_replace_result(score, (error, ok) => (error ? reject(error) : resolve(ok)));
  });
}

export interface GradeBook {
  readonly url: string;
  /** Grades by sourcedId, as replaceResult set them. */
  readonly grades: Map<string, string>;
  /** Client key of each accepted outcome request, in order. */
  readonly callers: string[];
  close(): Promise<void>;
}

/** The value at a dotted path of a parsed document. */
function pick(node: unknown, path: string): unknown {
  let current = node;
  for (const name of path.split('.')) {
    current = (current as Record<string, unknown> | undefined)?.[name];
  }
  return current;
}

const xml = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false });

/**
 * An LMS's Basic Outcomes endpoint at `/outcomes`: Latchkey's Fastify middleware verifies the
 * tool's two-legged signature and requires oauth_body_hash; the handler reads the POX request
 * and answers as an LMS does.
 */
export async function startGradeBook(provider: Provider): Promise<GradeBook> {
  const grades = new Map<string, string>();
  const callers: string[] = [];
  const app = Fastify();
  await app.register(latchkeyFastify, { provider });
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_r, b, done) =>
    done(null, b),
  );
  app.post(
    '/outcomes',
    { config: { oauth: { tokenRequired: false, requireBodyHash: true } } },
    async (request, reply) => {
      callers.push(request.oauth?.client.key ?? '');
      const envelope = pick(xml.parse(request.body as string), 'imsx_POXEnvelopeRequest');
      const messageId = String(
        pick(envelope, 'imsx_POXHeader.imsx_POXRequestHeaderInfo.imsx_messageIdentifier'),
      );
      const body = pick(envelope, 'imsx_POXBody') as Record<string, unknown>;
      const operation = Object.keys(body)[0]!.replace(/Request$/, '');
      const record = pick(body, `${operation}Request.resultRecord`);
      const sourcedId = String(pick(record, 'sourcedGUID.sourcedId'));
      let result = '';
      if (operation === 'replaceResult') {
        grades.set(sourcedId, String(pick(record, 'result.resultScore.textString')));
      } else if (operation === 'deleteResult') {
        grades.delete(sourcedId);
      } else if (operation === 'readResult') {
        const score = grades.get(sourcedId) ?? '';
        result = `<readResultResponse><result><resultScore><language>en</language><textString>${score}</textString></resultScore></result></readResultResponse>`;
      }
      if (result === '') result = `<${operation}Response/>`;
      reply.header('content-type', 'application/xml');
      return `<?xml version="1.0" encoding="UTF-8"?>
<imsx_POXEnvelopeResponse xmlns="http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0">
  <imsx_POXHeader><imsx_POXResponseHeaderInfo><imsx_version>V1.0</imsx_version>
    <imsx_messageIdentifier>lms-${messageId}</imsx_messageIdentifier>
    <imsx_statusInfo><imsx_codeMajor>success</imsx_codeMajor><imsx_severity>status</imsx_severity>
      <imsx_description>${operation} done</imsx_description>
      <imsx_messageRefIdentifier>${messageId}</imsx_messageRefIdentifier>
      <imsx_operationRefIdentifier>${operation}</imsx_operationRefIdentifier></imsx_statusInfo>
  </imsx_POXResponseHeaderInfo></imsx_POXHeader>
  <imsx_POXBody>${result}</imsx_POXBody>
</imsx_POXEnvelopeResponse>`;
    },
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, grades, callers, close: () => app.close() };
}
