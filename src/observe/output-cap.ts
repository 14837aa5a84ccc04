import type { AgentEvent } from '../backends/types.ts';
import type { LoopEvent } from './events.ts';
import { formatBytes, HeadTail, type HeadTailOptions } from './head-tail.ts';

type Output = Extract<LoopEvent, { type: 'agent.output' }>;
type GateOutput = Extract<LoopEvent, { type: 'gate.output' }>;
export type AgentText = Extract<LoopEvent, { type: 'agent.event' }> & {
  event: Extract<AgentEvent, { type: 'text' }>;
};

/** Events after which an iteration's agent output is over: its held tail is passed on before them. */
const OUTPUT_OVER = new Set<LoopEvent['type']>([
  'gate.started',
  'iteration.finished',
  'iteration.started',
  'loop.finished',
]);

/** Whether the agent output of the iteration is over once `e` comes (what a held tail waits for). */
export const endsAgentOutput = (e: LoopEvent): boolean => OUTPUT_OVER.has(e.type);

/** The marker where output was cut, as the log, the console and the dashboard show it. */
export function cutMarker(cutBytes: number, why: string, what = 'agent output'): string {
  return `… ${formatBytes(cutBytes)} of ${what} cut here (${why}) …`;
}

/**
 * Text events as head-and-tail pieces: each a line (its newline counted), kept or cut whole; the
 * lines held for the tail come back merged, one event per block (every view prints them the same).
 */
function textPieces(headBytes: number, tailBytes: number): HeadTailOptions<AgentText> {
  return {
    headBytes,
    tailBytes,
    textOf: (e) => e.event.text,
    withText: (e, text) => ({ ...e, event: { type: 'text', text } }),
    lines: true,
  };
}

/** A line of text the agent printed, as its backend's parser read it. */
export const isText = (e: LoopEvent): e is AgentText => e.type === 'agent.event' && e.event.type === 'text';

/** Text shown per iteration by the console, the TUI and the dashboard (its stream file): half head, half tail. */
export const VIEW_BYTES = 1024 * 1024;

/**
 * Bounds what an iteration's agent output leaves behind (`logs.max_output_mb`). Of the raw output
 * (the run log) the first half of the budget passes at once and the last half is held and passed
 * on when the agent's output is over, after a marker that says how much was cut; `maxMb` 0 keeps
 * it all. The text parsed from it (what the console, the TUI and the dashboard show) is cut the
 * same way to at most `VIEW_BYTES`. Everything else passes unchanged, and the parser and the usage
 * meter see every line before this (tokens and cost are never cut). Runs before the redaction,
 * which then sees whole lines only (cuts fall on line ends). A gate command's output (tests,
 * validate) is cut the same way, per gate run, its tail passed on before its `gate.finished`.
 */
export function createOutputCap(maxMb: number, setting: string): (event: LoopEvent) => readonly LoopEvent[] {
  const maxBytes = maxMb > 0 ? Math.round(maxMb * 1024 * 1024) : Number.POSITIVE_INFINITY;
  const half = Math.floor(maxBytes / 2);
  const output = new HeadTail<Output>({
    headBytes: half,
    tailBytes: maxBytes - half,
    textOf: (e) => e.text,
    withText: (e, text) => ({ ...e, text }),
  });
  // A gate printing hundreds of MB: the same budget per gate run, the tail held until it finishes.
  const gateOutput = new HeadTail<GateOutput>({
    headBytes: half,
    tailBytes: maxBytes - half,
    textOf: (e) => e.text,
    withText: (e, text) => ({ ...e, text }),
  });
  let gate: GateOutput | undefined;
  const endGate = (): LoopEvent[] => {
    const at = gate;
    if (at === undefined) return [];
    gate = undefined;
    return gateOutput.end((cut, atLineStart) => ({
      ...at,
      text: `${atLineStart ? '' : '\n'}${cutMarker(cut, `${setting}: ${maxMb}`, `${at.gate} output`)}\n`,
    }));
  };
  const viewBytes = Math.min(VIEW_BYTES, maxBytes);
  const text = new HeadTail<AgentText>(
    textPieces(Math.floor(viewBytes / 2), viewBytes - Math.floor(viewBytes / 2)),
  );
  const kept = `${setting}: ${maxMb}`;
  const shown =
    viewBytes < maxBytes
      ? `${formatBytes(viewBytes)} shown per iteration; ralph logs has ${maxMb > 0 ? `up to ${kept}` : 'all of it'}`
      : kept;
  let iteration: number | undefined;
  const end = (): LoopEvent[] => {
    const at = iteration;
    if (at === undefined) return [];
    iteration = undefined;
    return [
      ...output.end((cut, atLineStart) => ({
        type: 'agent.output',
        iteration: at,
        stream: 'stdout',
        text: `${atLineStart ? '' : '\n'}${cutMarker(cut, kept)}\n`,
      })),
      ...text.end((cut) => ({
        type: 'agent.event',
        iteration: at,
        event: { type: 'text', text: cutMarker(cut, shown) },
      })),
    ];
  };
  return (event) => {
    if (event.type === 'agent.output' || isText(event)) {
      if (iteration === event.iteration)
        return event.type === 'agent.output' ? output.push(event) : text.push(event as AgentText);
      const before = end();
      iteration = event.iteration;
      const now = event.type === 'agent.output' ? output.push(event) : text.push(event as AgentText);
      return before.length === 0 ? now : [...before, ...now];
    }
    if (event.type === 'gate.output') {
      const before =
        gate && (gate.iteration !== event.iteration || gate.gate !== event.gate) ? endGate() : [];
      gate = event;
      const now = gateOutput.push(event);
      return before.length === 0 ? now : [...before, ...now];
    }
    const gateOver = event.type === 'gate.finished' || event.type === 'loop.finished' ? endGate() : [];
    return endsAgentOutput(event) ? [...gateOver, ...end(), event] : [...gateOver, event];
  };
}
