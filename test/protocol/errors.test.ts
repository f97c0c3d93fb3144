import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isOAuthError,
  OAuthError,
  parseFormUrlEncoded,
  problemChallenge,
  problemFormBody,
  problems,
} from '../../src/protocol/index.ts';
import type { OAuthProblem } from '../../src/protocol/index.ts';

describe('OAuth Problem Reporting: OAuthError', () => {
  it('takes its status from the catalog', () => {
    for (const problem of Object.keys(problems) as OAuthProblem[]) {
      assert.equal(new OAuthError(problem, 'm').status, problems[problem].status, problem);
    }
  });

  it('answers a malformed request with 400 and bad credentials with 401 (RFC 5849 §3.2)', () => {
    assert.equal(new OAuthError('parameter_absent', 'm').status, 400);
    assert.equal(new OAuthError('signature_method_rejected', 'm').status, 400);
    assert.equal(new OAuthError('signature_invalid', 'm').status, 401);
    assert.equal(new OAuthError('nonce_used', 'm').status, 401);
  });

  it('lets the thrower override the status', () => {
    assert.equal(new OAuthError('parameter_rejected', 'm', { status: 413 }).status, 413);
  });

  it('carries its problem, message, advice and cause', () => {
    const cause = new Error('inner');
    const error = new OAuthError('parameter_absent', 'Missing.', {
      advice: { oauth_parameters_absent: 'oauth_nonce' },
      cause,
    });
    assert.equal(error.problem, 'parameter_absent');
    assert.equal(error.message, 'Missing.');
    assert.deepEqual(error.advice, { oauth_parameters_absent: 'oauth_nonce' });
    assert.equal(error.cause, cause);
  });

  it('has no advice and no cause unless given', () => {
    const error = new OAuthError('nonce_used', 'm');
    assert.deepEqual(error.advice, {});
    assert.equal('cause' in error, false);
  });

  it('is an Error named OAuthError', () => {
    const error = new OAuthError('nonce_used', 'm');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'OAuthError');
  });

  it('is recognized by isOAuthError, and other errors are not', () => {
    assert.equal(isOAuthError(new OAuthError('nonce_used', 'm')), true);
    assert.equal(isOAuthError(new Error('m')), false);
    assert.equal(isOAuthError(undefined), false);
  });

  it('documents when each problem happens and how a client fixes it', () => {
    for (const [problem, entry] of Object.entries(problems)) {
      assert.ok(entry.when.length > 0 && entry.fix.length > 0, problem);
    }
  });
});

describe('OAuth Problem Reporting: the error response', () => {
  const absent = new OAuthError('parameter_absent', 'Send oauth_nonce & oauth_timestamp.', {
    advice: { oauth_parameters_absent: 'oauth_nonce&oauth_timestamp' },
  });

  it('writes oauth_problem and oauth_problem_advice as a form body', () => {
    const body = problemFormBody(new OAuthError('nonce_used', 'Used.'));
    assert.equal(body, 'oauth_problem=nonce_used&oauth_problem_advice=Used.');
  });

  it('percent-encodes the advice and appends the advice fields', () => {
    assert.equal(
      problemFormBody(absent),
      'oauth_problem=parameter_absent' +
        '&oauth_problem_advice=Send%20oauth_nonce%20%26%20oauth_timestamp.' +
        '&oauth_parameters_absent=oauth_nonce%26oauth_timestamp',
    );
  });

  it('writes a body a form parser reads back', () => {
    assert.deepEqual(parseFormUrlEncoded(problemFormBody(absent)), [
      ['oauth_problem', 'parameter_absent'],
      ['oauth_problem_advice', 'Send oauth_nonce & oauth_timestamp.'],
      ['oauth_parameters_absent', 'oauth_nonce&oauth_timestamp'],
    ]);
  });

  it('challenges with the OAuth scheme, the realm and the problem (RFC 5849 §3.5.1)', () => {
    assert.equal(
      problemChallenge(new OAuthError('signature_invalid', 'm'), 'Photos'),
      'OAuth realm="Photos", oauth_problem="signature_invalid"',
    );
  });

  it('strips quotes, backslashes and line breaks from the realm of the challenge', () => {
    assert.equal(
      problemChallenge(new OAuthError('token_rejected', 'm'), 'a"b\\c\r\nd'),
      'OAuth realm="abcd", oauth_problem="token_rejected"',
    );
  });
});
