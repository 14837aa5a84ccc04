import { appendEvents } from '../../../state/events-log.ts';
import type { WaveRecord } from '../../../state/iteration-record-shape.ts';
import type { PendingEvent } from '../../../state/loop-state.ts';
import type { RunContext } from '../../context/run-context.ts';
import { collectEvents } from '../collect-events.ts';
import { joinWaveResults, type MemberEvent } from './wave-plan.ts';
import type { WaveMemberRun } from './wave-run.ts';

/** What a finished wave hands on: its members' results as one batch, and its record. */
export interface WaveResults {
  published: PendingEvent[];
  record: WaveRecord;
}

/**
 * Reads what each member published (its own events file, and `<event>` tags in its final text),
 * redacted as every agent event is, and joins them in member order. The batch is appended to the
 * run's events file in one write, each line naming its member and carrying `source: wave`, so a
 * re-read (a re-run after a crash before the iteration was recorded) never routes it twice.
 */
export function collectWaveResults(
  ctx: RunContext,
  number: number,
  hatId: string | null,
  members: readonly WaveMemberRun[],
  concurrency: number,
): WaveResults {
  const read = members.map((m) => {
    if (!m.run) return { index: m.index, published: [] };
    const got = collectEvents({
      eventsFile: m.eventsFile,
      offset: 0,
      streak: 0,
      iteration: number,
      hat: hatId,
      finalText: m.run.finalText,
      prompt: m.prompt,
      defaultSource: 'wave',
      redact: ctx.redact,
      cleanFile: false,
    });
    for (const bad of got.malformed)
      ctx.emit({ type: 'event.malformed', iteration: number, line: bad.line, error: bad.error });
    return { index: m.index, published: got.published.map((e) => ({ ...e, source: 'wave' })) };
  });
  const joined = joinWaveResults(read);
  const ts = new Date(ctx.now()).toISOString();
  appendEvents(
    ctx.eventsFile,
    joined.map((e) => ({
      topic: e.topic,
      payload: e.payload,
      ts,
      iteration: number,
      hat: hatId,
      source: 'wave',
      wave_member: e.member,
    })),
  );
  return {
    published: joined.map(({ member: _, ...e }) => e),
    record: waveRecord(members, concurrency, joined),
  };
}

/** The wave as its iteration's record shows it: each member's end and what it handed on (`joined`). */
export function waveRecord(
  members: readonly WaveMemberRun[],
  concurrency: number,
  joined: readonly MemberEvent[],
): WaveRecord {
  return {
    concurrency,
    members: members.map((m) => ({
      index: m.index,
      topic: m.topic,
      verdict: m.failure === undefined ? 'success' : 'failure',
      reason: m.failure ?? null,
      exit_code: m.run?.supervised.exitCode ?? null,
      killed_by: m.run?.supervised.killedBy ?? null,
      duration_ms: m.run?.supervised.durationMs ?? 0,
      tokens: m.run?.meter.totals().total ?? 0,
      cost_usd: m.run?.meter.spentUsd() ?? null,
      events: joined.filter((e) => e.member === m.index).map((e) => e.topic),
    })),
  };
}
