// A token's device hint (src/provider/flow/device-hint.ts): what is kept of a User-Agent, and
// the short form the pages, the CLI and the admin API show to tell two tokens apart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DEVICE_HINT_MAX_LENGTH,
  describeDevice,
  deviceHintOf,
} from '../../src/provider/flow/device-hint.ts';

describe('device hints: what is kept of a User-Agent', () => {
  it('keeps a User-Agent as sent, trimmed', () => {
    assert.equal(deviceHintOf('  curl/8.5.0 '), 'curl/8.5.0');
  });

  it('keeps nothing when no User-Agent, or only spaces, was sent', () => {
    assert.equal(deviceHintOf(undefined), undefined);
    assert.equal(deviceHintOf(''), undefined);
    assert.equal(deviceHintOf(' \t '), undefined);
  });

  it('makes control characters and runs of spaces one space', () => {
    assert.equal(deviceHintOf('evil\u0000agent\r\n\u007f/1.0   x'), 'evil agent /1.0 x');
  });

  it(`caps it at ${DEVICE_HINT_MAX_LENGTH} characters, never splitting a character`, () => {
    assert.equal(deviceHintOf('a'.repeat(10_000))?.length, DEVICE_HINT_MAX_LENGTH);
    const emoji = deviceHintOf('😀'.repeat(500))!;
    assert.equal(Array.from(emoji).length, DEVICE_HINT_MAX_LENGTH);
    assert.ok(!/[\ud800-\udbff]$/.test(emoji), 'no lone surrogate at the end');
  });

  it('keeps any string within the cap and free of control characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (agent) => {
        const hint = deviceHintOf(agent);
        if (hint === undefined) return;
        assert.ok(Array.from(hint).length <= DEVICE_HINT_MAX_LENGTH);
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(hint, /[\u0000-\u001f\u007f]/);
        assert.equal(hint, hint.trim());
        assert.notEqual(hint, '');
      }),
    );
  });
});

describe('device hints: the short form people read', () => {
  for (const [agent, short] of [
    ['curl/8.5.0', 'curl/8.5'],
    ['python-requests/2.31.0', 'python-requests/2.31'],
    ['Go-http-client/1.1', 'Go-http-client/1.1'],
    ['okhttp/4.12.0', 'okhttp/4.12'],
    ['node', 'node'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      'Edge on Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari on macOS',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Safari on iOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      'Chrome on Linux',
    ],
  ] as const) {
    it(`shows ${agent.slice(0, 50)} as ${short}`, () => {
      assert.equal(describeDevice(agent), short);
    });
  }

  it('shows the first words of anything else, shortened', () => {
    const long = 'An unusual agent that names itself at great length and says nothing useful';
    const short = describeDevice(long);
    assert.ok(short.endsWith('…'));
    assert.ok(Array.from(short).length <= 41);
    assert.ok(long.startsWith(short.slice(0, -1)));
  });
});
