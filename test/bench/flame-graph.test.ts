// The flame graphs of docs/benchmarks.md (bench/report/flame-graph.ts): a box's width must be
// its share of busy time, or the graph says where the time goes wrongly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderFlameGraph } from '../../bench/report/flame-graph.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const frame = (functionName: string, url = 'file:///app/src/protocol/hmac.ts') => ({
  functionName,
  url,
  lineNumber: 0,
});

/** A profile: (root) → [verify → [hmac], (idle), (program)], with these self samples. */
function profile(samples: { verify: number; hmac: number; idle: number; program: number }) {
  const nodes: Node[] = [
    { id: 1, callFrame: frame('(root)', ''), hitCount: 0, children: [2, 4, 5] },
    { id: 2, callFrame: frame('verify'), hitCount: samples.verify, children: [3] },
    { id: 3, callFrame: frame('hmac'), hitCount: samples.hmac },
    { id: 4, callFrame: frame('(idle)', ''), hitCount: samples.idle },
    { id: 5, callFrame: frame('(program)', ''), hitCount: samples.program },
  ];
  return JSON.stringify({ nodes });
}

interface Box {
  tip: string;
  x: number;
  y: number;
  width: number;
}

function boxes(svg: string): Box[] {
  const found = [
    ...svg.matchAll(/<title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"/g),
  ];
  return found.map(([, tip, x, y, width]) => ({
    tip: tip!,
    x: Number(x),
    y: Number(y),
    width: Number(width),
  }));
}

const boxFor = (svg: string, name: string) => boxes(svg).find((b) => b.tip.startsWith(name))!;

describe('flame graph', () => {
  it('gives each function a width in proportion to its busy samples, its callees included', () => {
    const svg = renderFlameGraph(profile({ verify: 30, hmac: 30, idle: 0, program: 40 }), 't', 's');
    const all = boxFor(svg, 'all busy time').width;
    assert.ok(Math.abs(boxFor(svg, 'verify').width / all - 0.6) < 0.01);
    assert.ok(Math.abs(boxFor(svg, 'hmac').width / all - 0.3) < 0.01);
  });

  it('leaves idle samples out of the whole', () => {
    const svg = renderFlameGraph(
      profile({ verify: 50, hmac: 0, idle: 900, program: 50 }),
      't',
      's',
    );
    assert.match(boxFor(svg, 'verify').tip, /: 50\.0 % \(self 50\.0 %\)$/);
    assert.equal(
      boxes(svg).some((b) => b.tip.startsWith('(idle)')),
      false,
    );
  });

  it('draws a callee above its caller, starting where the caller starts', () => {
    const svg = renderFlameGraph(profile({ verify: 10, hmac: 10, idle: 0, program: 0 }), 't', 's');
    const [caller, callee] = [boxFor(svg, 'verify'), boxFor(svg, 'hmac')];
    assert.ok(callee.y < caller.y);
    assert.equal(callee.x, caller.x);
  });

  it('leaves out a function under a thousandth of busy time', () => {
    const svg = renderFlameGraph(profile({ verify: 5000, hmac: 4, idle: 0, program: 0 }), 't', 's');
    assert.equal(boxFor(svg, 'hmac'), undefined);
  });

  it('escapes names and titles as XML text', () => {
    const text = profile({ verify: 1, hmac: 1, idle: 0, program: 0 }).replace(
      '"verify"',
      '"<get> & \\"set\\""',
    );
    const svg = renderFlameGraph(text, 'a < b', 's');
    assert.match(svg, /&lt;get&gt; &amp; &quot;set&quot;/);
    assert.match(svg, /a &lt; b/);
    assert.doesNotMatch(svg, /<get>/);
  });
});
