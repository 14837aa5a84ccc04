import type { StreamLine } from '../observe/reporters/event-stream-file.ts';

/** HTML-escapes text for element content and attribute values. */
export function esc(text: unknown): string {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A server-rendered bar chart (no script, no CDN): one bar per value, labelled by `labels`, the
 * largest value on the axis.
 */
export function barChart(
  title: string,
  values: number[],
  labels: string[],
  unit: (v: number) => string,
): string {
  const w = 360;
  const h = 120;
  const pad = 24;
  const max = Math.max(...values, 0);
  const n = values.length;
  const slot = n > 0 ? (w - pad) / n : 0;
  const bars = values
    .map((v, i) => {
      const bh = max > 0 ? Math.max(1, ((h - pad) * v) / max) : 0;
      const x = pad + i * slot + slot * 0.15;
      return `<rect x="${x.toFixed(1)}" y="${(h - pad - bh).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${bh.toFixed(1)}"><title>${esc(labels[i])}: ${esc(unit(v))}</title></rect>`;
    })
    .join('');
  return `<figure class="chart"><figcaption>${esc(title)} <small>max ${esc(unit(max))}</small></figcaption><svg viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(title)}"><line x1="${pad}" y1="${h - pad}" x2="${w}" y2="${h - pad}" class="axis"/>${bars}${n > 0 ? `<text x="${pad}" y="${h - 6}">${esc(labels[0])}</text><text x="${w}" y="${h - 6}" text-anchor="end">${esc(labels[n - 1])}</text>` : '<text x="50%" y="50%" text-anchor="middle">no iterations yet</text>'}</svg></figure>`;
}

/** Hats as observed in the run: activations in order, and the topics that handed over between them. */
export function observedHatGraph(lines: StreamLine[]): {
  hats: string[];
  edges: [string, string, string][];
  active: string | null;
} {
  const hats: string[] = [];
  const edges = new Map<string, [string, string, string]>();
  let active: string | null = null;
  for (const { event: e } of lines) {
    if (e.type !== 'hat.activated') continue;
    if (!hats.includes(e.hatId)) hats.push(e.hatId);
    for (const topic of e.triggeredBy)
      if (active && active !== e.hatId) edges.set(`${active}|${topic}|${e.hatId}`, [active, topic, e.hatId]);
    active = e.hatId;
  }
  return { hats, edges: [...edges.values()], active };
}

/** The hat graph as SVG: one box per hat, arrows labelled with the topics; the active hat lit. */
export function hatGraphSvg(g: ReturnType<typeof observedHatGraph>, running: boolean): string {
  if (g.hats.length === 0) return '<p class="muted">solo mode (no hats)</p>';
  const bw = 150;
  const gap = 70;
  const w = g.hats.length * (bw + gap);
  const h = 70 + g.edges.length * 16;
  const x = (id: string) => g.hats.indexOf(id) * (bw + gap) + 10;
  const boxes = g.hats
    .map((id) => {
      const lit = running && id === g.active;
      return `<g class="hat${lit ? ' active' : ''}"><rect x="${x(id)}" y="10" width="${bw}" height="34" rx="6"/><text x="${x(id) + bw / 2}" y="32" text-anchor="middle">${esc(id)}${lit ? ' ●' : ''}</text></g>`;
    })
    .join('');
  const arrows = g.edges
    .map(([from, topic, to], i) => {
      const y = 58 + i * 16;
      const x1 = x(from) + bw / 2;
      const x2 = x(to) + bw / 2;
      return `<line x1="${x1}" y1="44" x2="${x1}" y2="${y}"/><line x1="${x1}" y1="${y}" x2="${x2}" y2="${y}"/><line x1="${x2}" y1="${y}" x2="${x2}" y2="46" marker-end="url(#arrow)"/><text x="${(x1 + x2) / 2}" y="${y - 3}" text-anchor="middle" class="topic">${esc(topic)}</text>`;
    })
    .join('');
  return `<svg class="hats" viewBox="0 0 ${w} ${h}" role="img" aria-label="hat graph"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>${boxes}${arrows}</svg>`;
}
