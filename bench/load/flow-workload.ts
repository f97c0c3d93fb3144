/**
 * Complete three-step flows (RFC 5849 §2) per connection: temporary credentials (§2.1),
 * the owner's approval through the same provider call the consent page makes (§2.2), and
 * the token exchange (§2.3). One unit is one flow that ended with token credentials.
 * Requests are signed with the client SDK: flows are far slower than its signing.
 */
import { signRequest } from '../../src/client/sign.ts';
import type { SignedRequest } from '../../src/client/sign.ts';
import { parseFormUrlEncoded } from '../../src/protocol/index.ts';
import { headerValue } from './response-parser.ts';
import type { ParsedResponse } from './response-parser.ts';
import type { Verdict, Workload } from './workload.ts';

export interface FlowSpec {
  /** The Host header value, `127.0.0.1:PORT`. */
  readonly host: string;
  readonly client: { readonly key: string; readonly secret: string };
  readonly signatureMethod: string;
  readonly requestTokenPath: string;
  readonly accessTokenPath: string;
  readonly callback: string;
  /**
   * A POST route of the benchmark server that approves `?oauth_token=` for the seeded owner
   * through the consent page's provider call and answers with the verifier, as a redirect
   * (`Location: …oauth_verifier=…`) or a form body.
   */
  readonly approvePath: string;
}

interface FlowState {
  step: 'temporary' | 'approve' | 'exchange';
  token: string;
  secret: string;
  verifier: string;
}

const FAILED: Verdict = { ok: false, unitDone: false };
const STEP_OK: Verdict = { ok: true, unitDone: false };
const FLOW_DONE: Verdict = { ok: true, unitDone: true };

export function flowWorkload(spec: FlowSpec): Workload {
  const states: FlowState[] = [];
  const base = `http://${spec.host}`;
  const state = (connection: number): FlowState =>
    (states[connection] ??= { step: 'temporary', token: '', secret: '', verifier: '' });

  const next = (connection: number): string => {
    const flow = state(connection);
    if (flow.step === 'temporary') {
      return wire(
        signRequest({
          method: 'POST',
          url: base + spec.requestTokenPath,
          client: spec.client,
          signatureMethod: spec.signatureMethod,
          protocolParameters: { oauth_callback: spec.callback },
        }),
        spec.host,
      );
    }
    if (flow.step === 'approve') {
      const query = `oauth_token=${encodeURIComponent(flow.token)}`;
      return `POST ${spec.approvePath}?${query} HTTP/1.1\r\nHost: ${spec.host}\r\nContent-Length: 0\r\n\r\n`;
    }
    return wire(
      signRequest({
        method: 'POST',
        url: base + spec.accessTokenPath,
        client: spec.client,
        token: { token: flow.token, secret: flow.secret },
        signatureMethod: spec.signatureMethod,
        protocolParameters: { oauth_verifier: flow.verifier },
      }),
      spec.host,
    );
  };

  const onResponse = (connection: number, response: ParsedResponse): Verdict => {
    const flow = state(connection);
    const restart = () => {
      flow.step = 'temporary';
      return FAILED;
    };
    if (flow.step === 'temporary') {
      const fields = formFields(response);
      if (response.status !== 200 || !fields.oauth_token || !fields.oauth_token_secret)
        return restart();
      flow.token = fields.oauth_token;
      flow.secret = fields.oauth_token_secret;
      flow.step = 'approve';
      return STEP_OK;
    }
    if (flow.step === 'approve') {
      const verifier = verifierFrom(response);
      if (verifier === undefined) return restart();
      flow.verifier = verifier;
      flow.step = 'exchange';
      return STEP_OK;
    }
    const fields = formFields(response);
    flow.step = 'temporary';
    return response.status === 200 && fields.oauth_token ? FLOW_DONE : FAILED;
  };

  return {
    next,
    onResponse,
    reset: (connection) => {
      state(connection).step = 'temporary';
    },
  };
}

function wire(signed: SignedRequest, host: string): string {
  const url = new URL(signed.url);
  let head = `${signed.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(signed.headers)) head += `${name}: ${value}\r\n`;
  const body = typeof signed.body === 'string' ? signed.body : '';
  if (signed.method === 'POST') head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return `${head}\r\n${body}`;
}

function formFields(response: ParsedResponse): Record<string, string> {
  try {
    return Object.fromEntries(parseFormUrlEncoded(response.body.toString('utf8')));
  } catch {
    return {};
  }
}

function verifierFrom(response: ParsedResponse): string | undefined {
  const location = headerValue(response.head, 'location');
  if (location !== undefined && response.status >= 300 && response.status < 400) {
    return new URL(location, 'http://x').searchParams.get('oauth_verifier') ?? undefined;
  }
  if (response.status !== 200) return undefined;
  return formFields(response).oauth_verifier;
}
