import { existsSync, readdirSync } from 'node:fs';
import { describeAgent } from '../../backends/registry.ts';
import { ExitCode, RalphError } from '../../errors.ts';
import { formatCost, formatNumber, repoSummary, stopText } from '../../observe/format.ts';
import { skippedNotice } from '../../state/io/jsonl.ts';
import { formatSpan } from '../../state/io/time-format.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import { readLoopState } from '../../state/loop-state.ts';
import { ralphPaths } from '../../state/paths.ts';
import { readRecords, recordsFileOf } from '../../state/records-file.ts';
import type { CliIO } from '../io.ts';

/** The run a `[RUN]` argument names: an id or a unique prefix; by default the current or last run. */
function resolveRunId(workspace: string, run: string | undefined): string {
  const runs = ralphPaths(workspace).runs;
  const ids = existsSync(runs) ? readdirSync(runs).sort() : [];
  if (run === undefined) {
    const state = readLoopState(ralphPaths(workspace).state);
    const id = state?.run_id ?? ids.at(-1);
    if (!id) throw new RalphError('no_run', `no Ralph run in ${workspace} yet`);
    return id;
  }
  const matches = ids.filter((id) => id.startsWith(run));
  if (matches.length === 1) return matches[0] as string;
  throw new RalphError(
    matches.length === 0 ? 'no_run' : 'ambiguous_run',
    matches.length === 0
      ? `no run ${JSON.stringify(run)} in ${workspace} (runs: ${ids.slice(-5).join(', ') || 'none'})`
      : `${JSON.stringify(run)} matches ${matches.length} runs: ${matches.join(', ')}; give more of the id`,
  );
}

/** The run's records; damaged lines are skipped and named on stderr. */
function recordsOf(io: CliIO, runId: string): IterationRecord[] {
  const file = recordsFileOf(ralphPaths(io.cwd), runId);
  const { records, skipped } = readRecords(file);
  if (skipped.length > 0) io.err(`ralph: ${skippedNotice(file, skipped)}\n`);
  return records;
}

const mark = (v: boolean | null | undefined) => (v === undefined ? '–' : v === null ? '?' : v ? '✓' : '✗');

function limitLine(d: NonNullable<IterationRecord['decision']>): string {
  const l = d.limits;
  const pct = (used: number, max: number | null) => (max ? ` (${Math.round((used / max) * 100)} %)` : '');
  return [
    `iterations ${l.iterations.used}/${l.iterations.max}`,
    `runtime ${formatSpan(l.runtime_ms.used)}${l.runtime_ms.max ? ` of ${formatSpan(l.runtime_ms.max)}` : ''}`,
    `cost ${formatCost(l.cost_usd.used)}${l.cost_usd.max ? ` of ${formatCost(l.cost_usd.max)}${pct(l.cost_usd.used, l.cost_usd.max)}` : ''}`,
    `tokens ${formatNumber(l.tokens.used)}${l.tokens.max ? ` of ${formatNumber(l.tokens.max)}${pct(l.tokens.used, l.tokens.max)}` : ''}`,
    `failures in a row ${l.consecutive_failures.used}/${l.consecutive_failures.max}`,
  ].join(' · ');
}

/** gates.tests.affected: which suite ran, on how many files, and how long it took. */
function testsScope(r: IterationRecord): string {
  const t = r.gates.tests;
  if (t?.scope === 'affected')
    return ` (affected: ${t.files?.length ?? 0} file(s), ${formatSpan(t.duration_ms)})`;
  return t?.why ? ` (full: ${t.why}, ${formatSpan(t.duration_ms)})` : '';
}

/** The explanation of one iteration, as lines a person reads. */
export function explainRecord(r: IterationRecord): string[] {
  const d = r.decision;
  const route = d?.route;
  const lines = [
    `iteration ${r.iteration} · ${route?.hat ? `hat ${route.hat}` : 'solo'}${route?.triggered_by.length ? ` (triggered by ${route.triggered_by.join(', ')})` : ''} · ${describeAgent(r.backend, r.command)} · ${r.verdict}${r.reason ? ` — ${r.reason}` : ''} · ${formatSpan(r.duration_ms)}`,
  ];
  const model = route?.model;
  if (model)
    lines.push(
      `  model: ${model.name} (rung ${model.rung} of ${model.rungs}, ${model.scope}) — ${model.reason}`,
    );
  if (r.events.length > 0) lines.push(`  published: ${r.events.join(', ')}`);
  if (d?.completion)
    lines.push(
      `  completion: ${d.completion.accepted ? 'accepted' : `refused — ${d.completion.reasons.join('; ')}`}`,
    );
  const gates = Object.entries(r.gates).map(
    ([k, g]) =>
      `${k} ${mark(g?.passed)}${g && !g.passed ? ` (exit ${g.exit_code})` : ''}${k === 'tests' ? testsScope(r) : ''}`,
  );
  if (r.tests_skipped) gates.push(`tests ${r.tests_skipped}`);
  if (gates.length > 0) lines.push(`  gates: ${gates.join(', ')}`);
  // repos: the top-level commit is null; each repository's commit (or rollback) is here.
  for (const repo of r.repos ?? []) lines.push(`  repo ${repoSummary(repo)}`);
  if (r.progress)
    lines.push(
      `  progress: files ${mark(r.progress.files)} · commit ${mark(r.progress.commit)} · tasks ${mark(r.progress.tasks)} · events ${mark(r.progress.events)}`,
    );
  const human = [
    ...(r.guidance ?? []).map((g) => `guidance ${g}`),
    ...(r.questions ?? []).map((q) => `asked ${q}`),
    ...(r.approvals ?? []).map((a) => `${a.point} ${a.answer} by ${a.by}${a.reason ? ` (${a.reason})` : ''}`),
  ];
  if (human.length > 0) lines.push(`  human: ${human.join(', ')}`);
  if (r.sandbox)
    lines.push(
      `  sandbox: ${r.sandbox.mode}${r.sandbox.denials.length > 0 ? ` — refused ${r.sandbox.denials.map((x) => `${x.path} (${x.reason}: ${x.rule})`).join(', ')}` : ', nothing refused'}`,
    );
  if (r.wave) {
    // One line per member: the iteration's usage above is the members' sum.
    lines.push(`  wave: ${r.wave.members.length} members, ${r.wave.concurrency} at once`);
    for (const m of r.wave.members)
      lines.push(
        `    #${m.index + 1} ${m.topic} · ${m.verdict}${m.reason ? ` (${m.reason})` : ''} · ${Math.round(m.duration_ms / 1000)}s · ${m.tokens} tokens${m.events.length > 0 ? ` · published ${m.events.join(', ')}` : ''}`,
      );
  }
  if (d) lines.push(`  limits: ${limitLine(d)}`);
  if (d?.stop) lines.push(`  stop: ${stopText(d.stop.reason, d.stop.message)}`);
  return lines;
}

/** `ralph explain [RUN] [--iteration N] [--json]`. */
export function explainCommand(
  run: string | undefined,
  opts: { iteration?: number | undefined; json?: boolean | undefined },
  io: CliIO,
): number {
  const runId = resolveRunId(io.cwd, run);
  let records = recordsOf(io, runId);
  if (opts.iteration !== undefined) {
    const n = opts.iteration;
    records = records.filter((r) => r.iteration === n);
    if (records.length === 0)
      throw new RalphError('no_iteration', `run ${runId} has no recorded iteration ${n}`);
  }
  if (opts.json) {
    for (const r of records)
      io.out(
        `${JSON.stringify({ iteration: r.iteration, verdict: r.verdict, decision: r.decision ?? null, progress: r.progress ?? null })}\n`,
      );
    return ExitCode.ok;
  }
  if (records.length === 0) io.out(`run ${runId}: no iteration recorded yet\n`);
  else io.out(`run ${runId}\n${records.map((r) => explainRecord(r).join('\n')).join('\n')}\n`);
  const state = readLoopState(ralphPaths(io.cwd).state);
  if (state?.run_id === runId && state.stop_reason && opts.iteration === undefined)
    io.out(`stopped: ${stopText(state.stop_reason, state.stop_message)}\n`);
  return ExitCode.ok;
}
