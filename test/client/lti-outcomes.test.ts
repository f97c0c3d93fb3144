// The outcomes client's documents: the POX request it builds (values escaped, a score out of
// range refused before anything is sent) and how it reads an LMS's answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import {
  OutcomeError,
  outcomeRequestXml,
  parseOutcomeResponse,
  replaceResult,
} from '../../src/client/index.ts';

const answer = (codeMajor: string, body = '') => `<?xml version="1.0" encoding="UTF-8"?>
<imsx_POXEnvelopeResponse xmlns="http://www.imsglobal.org/services/ltiv1p1/xsd/imsoms_v1p0">
  <imsx_POXHeader><imsx_POXResponseHeaderInfo>
    <imsx_version>V1.0</imsx_version><imsx_messageIdentifier>4560</imsx_messageIdentifier>
    <imsx_statusInfo>
      <imsx_codeMajor>${codeMajor}</imsx_codeMajor><imsx_severity>status</imsx_severity>
      <imsx_description>Score for 3124567 is now 0.92</imsx_description>
      <imsx_messageRefIdentifier>999999123</imsx_messageRefIdentifier>
      <imsx_operationRefIdentifier>readResult</imsx_operationRefIdentifier>
    </imsx_statusInfo>
  </imsx_POXResponseHeaderInfo></imsx_POXHeader>
  <imsx_POXBody>${body}</imsx_POXBody>
</imsx_POXEnvelopeResponse>`;

describe('LTI outcomes client: POX documents', () => {
  it('builds a replaceResult request whose values are escaped', () => {
    const xml = outcomeRequestXml('replaceResult', 'a<b&"c\'', 'm&1', {
      score: 0.5,
      language: 'en-US',
    });
    const parsed = new XMLParser({ parseTagValue: false }).parse(xml) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const envelope = parsed['imsx_POXEnvelopeRequest'];
    assert.equal(envelope.imsx_POXHeader.imsx_POXRequestHeaderInfo.imsx_messageIdentifier, 'm&1');
    const record = envelope.imsx_POXBody.replaceResultRequest.resultRecord;
    assert.equal(record.sourcedGUID.sourcedId, 'a<b&"c\'');
    assert.equal(record.result.resultScore.textString, '0.5');
    assert.equal(record.result.resultScore.language, 'en-US');
  });

  it('reads the status and the score of an answer', () => {
    const read = parseOutcomeResponse(
      answer(
        'success',
        '<readResultResponse><result><resultScore><language>en</language><textString>0.91</textString></resultScore></result></readResultResponse>',
      ),
    );
    assert.deepEqual(read, {
      codeMajor: 'success',
      severity: 'status',
      description: 'Score for 3124567 is now 0.92',
      messageIdentifier: '4560',
      messageRefIdentifier: '999999123',
      operation: 'readResult',
      score: 0.91,
    });
    assert.equal(parseOutcomeResponse(answer('failure')).codeMajor, 'failure');
    assert.equal(parseOutcomeResponse(answer('success')).score, undefined);
  });

  it('refuses an answer that is not a POX response, and a DOCTYPE (no entity expansion)', () => {
    assert.throws(() => parseOutcomeResponse('<html><body>Login</body></html>'), OutcomeError);
    assert.throws(() => parseOutcomeResponse('not xml at all <'), OutcomeError);
    const bomb = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]>${answer('success')}`;
    assert.throws(() => parseOutcomeResponse(bomb), /DOCTYPE/);
  });

  it('refuses a score outside 0.0 to 1.0 before sending anything', () => {
    const target = {
      serviceUrl: 'http://127.0.0.1:9/outcomes',
      sourcedId: 's',
      client: { key: 'k', secret: 's' },
      fetch: () => Promise.reject(new Error('nothing may be sent')),
    };
    for (const score of [-0.1, 1.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => replaceResult(target, score), RangeError);
    }
  });
});
