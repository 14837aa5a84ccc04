import { startingTopic } from '../config/hat-checks.ts';
import type { HatConfig, RalphConfig } from '../config/schema.ts';
import { patternsOverlap } from '../config/topic-match.ts';
import { routeTopic } from './select-hat.ts';

const RESUME = 'task.resume';

/** One hand-off: `from` publishes `topic`, which activates hat `to` (null: no hat, a terminal topic). */
interface Edge {
  from: string;
  topic: string;
  to: string | null;
}

/** Topics a hat may publish: `publishes`, then any `default_publishes` not already listed. */
function published(hat: HatConfig): string[] {
  const d = hat.default_publishes;
  const defaults = d === undefined ? [] : Array.isArray(d) ? d : [d];
  return [...new Set([...hat.publishes, ...defaults])];
}

/** Hats a topic activates: the one routing picks, or for a published pattern every hat it overlaps. */
function targets(hats: ReadonlyArray<readonly [string, HatConfig]>, topic: string): string[] {
  if (topic.includes('*')) {
    return hats.filter(([, hat]) => hat.triggers.some((t) => patternsOverlap(t, topic))).map(([id]) => id);
  }
  const id = routeTopic(hats, topic);
  return id === null ? [] : [id];
}

function edges(config: RalphConfig): Edge[] {
  const hats = Object.entries(config.hats);
  return hats.flatMap(([from, hat]) =>
    published(hat).flatMap((topic): Edge[] => {
      const to = targets(hats, topic);
      return to.length === 0 ? [{ from, topic, to: null }] : to.map((id) => ({ from, topic, to: id }));
    }),
  );
}

function renderText(config: RalphConfig): string {
  const hats = Object.entries(config.hats);
  if (hats.length === 0) return 'no hats configured: solo mode (every iteration runs the base prompt)\n';
  const promise = config.event_loop.completion_promise;
  const persistent = config.event_loop.persistent;
  const list = (items: readonly string[], none: string) => (items.length > 0 ? items.join(', ') : none);
  const lines: string[] = [];
  const start = startingTopic(config);
  lines.push(`start: ${start} → ${list(targets(hats, start), '(no hat: coordinator mode)')}`);
  for (const [id, hat] of hats) {
    const label = hat.name ? `${id} (${hat.name})` : id;
    lines.push(
      `${label}: ${list(hat.triggers, '(no triggers)')} → ${list(published(hat), '(publishes nothing)')}`,
    );
  }
  lines.push('', 'edges:');
  for (const { from, topic, to } of edges(config)) {
    if (to !== null) {
      lines.push(`${from} → ${to} (${topic})`);
      continue;
    }
    let why = 'no hat triggers on it';
    if (topic === promise) {
      why = persistent
        ? `completion; persistent: becomes ${RESUME} → ${list(targets(hats, RESUME), 'coordinator')}`
        : 'completes the loop';
    }
    lines.push(`${from} → ${topic} (${why})`);
  }
  return `${lines.join('\n')}\n`;
}

/** A Mermaid label in double quotes; `"` is written as Mermaid's entity. */
function quote(text: string): string {
  return `"${text.replaceAll('"', '#quot;')}"`;
}

function renderMermaid(config: RalphConfig): string {
  const hats = Object.entries(config.hats);
  // Hat ids may hold characters Mermaid ids cannot; nodes get positional ids instead.
  const hatNode = new Map(hats.map(([id], i) => [id, `h${i}`]));
  const topicNode = new Map<string, string>();
  const lines = ['graph LR'];
  const start = startingTopic(config);
  lines.push(`  START([${quote(`start: ${start}`)}])`);
  for (const [id, hat] of hats) {
    lines.push(`  ${hatNode.get(id)}[${quote(hat.name ? `${id}<br/>${hat.name}` : id)}]`);
  }
  const all = edges(config);
  for (const edge of all) {
    if (edge.to !== null || topicNode.has(edge.topic)) continue;
    topicNode.set(edge.topic, `t${topicNode.size}`);
    lines.push(`  ${topicNode.get(edge.topic)}([${quote(edge.topic)}])`);
  }
  const startTargets = targets(hats, start);
  if (hats.length === 0) lines.push(`  solo[${quote('solo mode')}]`, '  START --> solo');
  for (const to of startTargets) lines.push(`  START -->|${quote(start)}| ${hatNode.get(to)}`);
  for (const edge of all) {
    const to = edge.to === null ? topicNode.get(edge.topic) : hatNode.get(edge.to);
    lines.push(`  ${hatNode.get(edge.from)} -->|${quote(edge.topic)}| ${to}`);
  }
  const promiseNode = topicNode.get(config.event_loop.completion_promise);
  if (config.event_loop.persistent && promiseNode !== undefined) {
    for (const to of targets(hats, RESUME)) {
      lines.push(`  ${promiseNode} -.->|${quote(`persistent: ${RESUME}`)}| ${hatNode.get(to)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Renders the hat topology (pure): every hat with its triggers and publishes, the starting event,
 * and the hand-offs (a published topic → the hat routing would activate for it). `mermaid` gives a
 * `graph LR`; topics no hat triggers on (like the completion promise) are terminal nodes.
 */
export function renderHatGraph(config: RalphConfig, format: 'text' | 'mermaid'): string {
  return format === 'mermaid' ? renderMermaid(config) : renderText(config);
}
