/**
 * A horizontal bar chart of each scenario's throughput as a ratio to the bare node:http
 * limit, written as plain SVG text (no dependency). Dashed lines mark the issue's targets.
 */
import type { RunRecord } from '../results.ts';
import { escapeXml } from './format.ts';

const WIDTH = 1000;
const LABEL = 430;
const BAR = 20;
const GAP = 8;
const TOP = 48;
const PLOT = WIDTH - LABEL - 90;

function colour(id: string): string {
  if (id.startsWith('limit') || id === 'fastify' || id === 'upstream') return '#8a8f98';
  if (id.startsWith('lean') || id.endsWith('-proxy')) return '#d08a2e';
  return '#2f6db5';
}

export function renderChart(run: RunRecord): string {
  const rows = run.scenarios.filter(
    (s) =>
      s.status === 'ok' &&
      s.summary?.ratio !== undefined &&
      s.summary.rate === undefined && // a paced run is not a maximum
      s.unit === 'requests',
  );
  const max = Math.max(1, ...rows.map((s) => s.summary!.ratio!));
  const x = (ratio: number) => Math.round((LABEL + (ratio / max) * PLOT) * 10) / 10;
  const height = TOP + rows.length * (BAR + GAP) + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="600">Throughput as a ratio to bare node:http (same run, one server core)</text>`,
    `<text x="16" y="40" fill="#555">${escapeXml(`${run.machine.date.slice(0, 10)} · Node ${run.machine.node} · ${run.machine.cpu} · median of ${run.options.rounds} round(s)`)}</text>`,
  ];
  for (const [ratio, label] of [
    [0.3, 'RSA target 0.30'],
    [0.5, 'HMAC target 0.50'],
  ] as const) {
    const at = x(ratio);
    parts.push(
      `<line x1="${at}" y1="${TOP - 4}" x2="${at}" y2="${height - 30}" stroke="#c0392b" stroke-dasharray="4 3"/>`,
      `<text x="${at + 3}" y="${height - 16}" fill="#c0392b" font-size="11">${label}</text>`,
    );
  }
  rows.forEach((scenario, index) => {
    const summary = scenario.summary!;
    const y = TOP + index * (BAR + GAP);
    const end = x(summary.ratio!);
    parts.push(
      `<text x="${LABEL - 8}" y="${y + BAR - 6}" text-anchor="end">${escapeXml(scenario.title.replaceAll('`', ''))}</text>`,
      `<rect x="${LABEL}" y="${y}" width="${Math.max(1, end - LABEL).toFixed(1)}" height="${BAR}" fill="${colour(scenario.id)}"/>`,
      `<text x="${end + 6}" y="${y + BAR - 6}">${summary.ratio!.toFixed(2)} · ${Math.round(summary.rps).toLocaleString('en-US')}/s</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
