/**
 * A flame graph of a V8 CPU profile (`.cpuprofile`), written as plain SVG text (no
 * dependency), so docs/benchmarks.md shows where each profiled scenario's time goes without
 * opening the profile in DevTools. Each box is a function in its call path; its width is the
 * share of busy samples spent in it and in what it called. The callers are at the bottom, the
 * callees on top; a box's colour says whose code it is. Idle samples are left out, and boxes
 * narrower than MIN_SHARE of the width (with everything above them) are not drawn.
 */
import { areaOf, locate } from '../profile-areas.ts';
import type { ProfileNode } from '../profile-areas.ts';
import { escapeXml } from './format.ts';

const WIDTH = 1200;
const ROW = 17;
const TOP = 78;
const MARGIN = 10;
const PLOT = WIDTH - 2 * MARGIN;
/** Boxes narrower than this share of busy time are left out (0.1 %: about 1 px). */
const MIN_SHARE = 0.001;
/** Approximate width of a character of the 11-px label font, for fitting labels. */
const CHAR_PX = 6.3;

/** Whose code a frame is, in the legend's terms, and its colour. */
const KINDS = [
  { kind: 'Latchkey (src/)', colour: '#e8833a' },
  { kind: 'Fastify and other packages', colour: '#6dbb6d' },
  { kind: 'Node.js internals', colour: '#7fa7d9' },
  { kind: 'native (OpenSSL, SQLite, sockets)', colour: '#d9c35c' },
  { kind: 'V8 (program, collector)', colour: '#b9b9b9' },
] as const;

type Kind = (typeof KINDS)[number]['kind'];

function kindOf(node: ProfileNode): Kind {
  const frame = node.callFrame;
  if (frame.functionName.startsWith('(')) return 'V8 (program, collector)';
  if (frame.url === '') return 'native (OpenSSL, SQLite, sockets)';
  const area = areaOf(locate(node));
  if (area.startsWith('src/')) return 'Latchkey (src/)';
  if (area === 'Node.js internals') return 'Node.js internals';
  return 'Fastify and other packages';
}

const colourOf = new Map<Kind, string>(KINDS.map((k) => [k.kind, k.colour]));

interface Box {
  readonly node: ProfileNode;
  readonly x: number;
  readonly depth: number;
  readonly share: number;
  readonly selfShare: number;
}

export function renderFlameGraph(profileText: string, title: string, subtitle: string): string {
  const { nodes } = JSON.parse(profileText) as { nodes: ProfileNode[] };
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const isIdle = (node: ProfileNode) => node.callFrame.functionName === '(idle)';
  // Samples in each node and everything it called, idle left out.
  const total = new Map<number, number>();
  const sum = (node: ProfileNode): number => {
    if (isIdle(node)) return 0;
    let hits = node.hitCount ?? 0;
    for (const child of node.children ?? []) hits += sum(byId.get(child)!);
    total.set(node.id, hits);
    return hits;
  };
  const root = nodes[0]!;
  const busy = Math.max(1, sum(root));

  const boxes: Box[] = [];
  const place = (node: ProfileNode, x: number, depth: number) => {
    const share = (total.get(node.id) ?? 0) / busy;
    if (share < MIN_SHARE) return;
    boxes.push({ node, x, depth, share, selfShare: (node.hitCount ?? 0) / busy });
    const children = (node.children ?? [])
      .map((id) => byId.get(id)!)
      .filter((child) => !isIdle(child))
      .sort((a, b) => (total.get(b.id) ?? 0) - (total.get(a.id) ?? 0));
    let at = x;
    for (const child of children) {
      place(child, at, depth + 1);
      at += (total.get(child.id) ?? 0) / busy;
    }
  };
  place(root, 0, 0);

  const depth = Math.max(...boxes.map((b) => b.depth)) + 1;
  const height = TOP + depth * ROW + MARGIN;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN}" y="22" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
    `<text x="${MARGIN}" y="40" fill="#555">${escapeXml(subtitle)}</text>`,
  ];
  let legendX = MARGIN;
  for (const { kind, colour } of KINDS) {
    parts.push(
      `<rect x="${legendX}" y="50" width="12" height="12" fill="${colour}"/>`,
      `<text x="${legendX + 16}" y="60">${escapeXml(kind)}</text>`,
    );
    legendX += 24 + kind.length * CHAR_PX;
  }
  for (const box of boxes) {
    const x = MARGIN + box.x * PLOT;
    const width = box.share * PLOT;
    // The root at the bottom, callees stacked above their callers.
    const y = height - MARGIN - (box.depth + 1) * ROW;
    const frame = box.node.callFrame;
    const name = box === boxes[0] ? 'all busy time' : frame.functionName || '(anonymous)';
    const where = frame.url === '' ? '' : ` ${locate(box.node)}`;
    const tip = `${name}${where}: ${percent(box.share)} (self ${percent(box.selfShare)})`;
    const fits = Math.floor((width - 6) / CHAR_PX);
    const label =
      fits < 3 ? '' : name.length <= fits ? name : `${name.slice(0, Math.max(1, fits - 1))}…`;
    parts.push(
      `<g><title>${escapeXml(tip)}</title>` +
        `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.5, width - 0.5).toFixed(1)}" height="${ROW - 1}" fill="${colourOf.get(kindOf(box.node))}"/>` +
        (label === ''
          ? ''
          : `<text x="${(x + 3).toFixed(1)}" y="${y + ROW - 5}">${escapeXml(label)}</text>`) +
        '</g>',
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}
