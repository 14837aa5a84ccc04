import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgentTurn } from '../../agent/agent-turn.ts';
import { resolveBackend } from '../../backends/registry.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { readableDiff } from '../../git/readable-diff.ts';
import { runGitRaw } from '../../git/run-git.ts';
import type { KilledProcess } from '../../process/marked-processes.ts';
import type { LoopState } from '../../state/loop-state.ts';
import {
  announceSwept,
  emitTurnEvent,
  judgeTurn,
  leftBehind,
  turnController,
  turnLimits,
} from '../context/agent-turns.ts';
import { type RunContext, ralphEnv, turnSandbox } from '../context/run-context.ts';
import { recordSpend } from '../context/spend-and-limits.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { pollStopNow } from '../steering/control-inbox.ts';

/** Characters of the diff given to the reviewer (the rest is left for it to read in the workspace). */
const MAX_DIFF_CHARS = 60_000;

export interface ReviewRound {
  iteration: number;
  approved: boolean;
  findings: string[];
}

/** A review's verdict read from the reviewer's final text: the last `APPROVE` / `REQUEST_CHANGES` line. */
export function parseVerdict(text: string): { approved: boolean; findings: string[] } | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  let at = -1;
  let approved = false;
  lines.forEach((l, i) => {
    const m = /^(?:\*\*)?(?:VERDICT:\s*)?(APPROVE|REQUEST_CHANGES)\b/i.exec(l);
    if (m) {
      at = i;
      approved = (m[1] as string).toUpperCase() === 'APPROVE';
    }
  });
  if (at < 0) return undefined;
  const findings = lines.filter((l) => /^[-*]\s+\S/.test(l)).map((l) => l.replace(/^[-*]\s+/, ''));
  return { approved, findings: approved ? [] : findings };
}

async function diffSinceStart(ctx: RunContext, base: string | null): Promise<string> {
  if (!ctx.inRepo || !base) return '(no git history to diff: read the workspace)';
  let changes: string;
  try {
    changes = await readableDiff(ctx.options.workspace, [base, '--'], { timeoutMs: 30_000 });
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return `(git diff failed: ${error.message})`;
  }
  const untracked = await runGitRaw(
    ctx.options.workspace,
    ['ls-files', '--others', '--exclude-standard'],
    {},
  );
  const extra = untracked.stdout.trim() ? `\nNew files not yet in git:\n${untracked.stdout.trim()}\n` : '';
  const diff =
    changes.length > MAX_DIFF_CHARS
      ? `${changes.slice(0, MAX_DIFF_CHARS)}\n… (diff cut; read the rest in the workspace)`
      : changes;
  return `${diff || '(no changes)'}${extra}`;
}

/** The reviewer's prompt: the task, the diff since the run started, the earlier rounds, the answer format. */
export async function reviewPrompt(ctx: RunContext, rounds: readonly ReviewRound[]): Promise<string> {
  const review = ctx.config.gates.review;
  const custom = review?.prompt_file
    ? readFileSync(join(ctx.options.workspace, review.prompt_file), 'utf8').trim()
    : '';
  const earlier = rounds
    .filter((r) => !r.approved)
    .map(
      (r, i) =>
        `Round ${i + 1} (after iteration ${r.iteration}):\n${r.findings.map((f) => `- ${f}`).join('\n') || '- (no findings given)'}`,
    )
    .join('\n\n');
  return [
    'You are a second-opinion code reviewer. Another agent worked on the task below; review its changes.',
    custom,
    `## The task\n${ctx.options.prompt.trim()}`,
    `## Changes since the run started\n\`\`\`diff\n${await diffSinceStart(ctx, ctx.state.review?.start_head ?? null)}\n\`\`\``,
    earlier
      ? `## Your earlier findings\n${earlier}\nCheck whether each was fixed. Do not repeat findings that are fixed.`
      : '',
    '## Answer\nReply with findings as lines starting with "- ", then a last line that is exactly `APPROVE` (the work does the task, nothing important is wrong) or `REQUEST_CHANGES`.',
  ]
    .filter((p) => p !== '')
    .join('\n\n');
}

export interface ReviewResult extends ReviewRound {
  costUsd: number;
  tokens: number;
  /** A limit (or Ctrl-C) stopped the reviewer mid-turn: no verdict, and the loop stops with this. */
  stop: Stop | undefined;
  /** What the reviewer left running, which Ralph killed. */
  killed: KilledProcess[];
}

/**
 * Runs one review with `gates.review.backend`, under the caps of an iteration (DESIGN.md §2): its
 * usage counts toward the run's limits, and crossing one kills the reviewer and stops the loop.
 */
export async function runReview(ctx: RunContext, iteration: number): Promise<ReviewResult> {
  const review = ctx.config.gates.review;
  if (!review) throw new Error('runReview without gates.review');
  const { state } = ctx;
  const book = state.review ?? { start_head: null, rounds: [], cost_usd: 0, tokens: 0 };
  state.review = book;
  const backend = resolveBackend(review.backend, ctx.config);
  const prompt = await reviewPrompt(ctx, book.rounds);
  const invocation = backend.buildInvocation({
    prompt,
    config: ctx.config,
    workspace: ctx.options.workspace,
    extraArgs: [],
  });
  const turn = turnController(ctx);
  const run = await runAgentTurn(backend, invocation, {
    cwd: ctx.options.workspace,
    env: ralphEnv(ctx, iteration, 'reviewer', [ctx.config.cli.env, invocation.env]),
    limits: turnLimits(ctx, ctx.config.event_loop.iteration_timeout_seconds * 1000, 'review_timeout'),
    signal: turn.controller.signal,
    // `ralph stop --now` kills the reviewer as it kills the iteration's agent.
    onTick: () => pollStopNow(ctx, turn.controller),
    onEvent: (e) => emitTurnEvent(ctx, iteration, e),
    sweep: { select: { runId: state.run_id }, kill: ctx.sweep },
    redact: ctx.redact,
    sandbox: turnSandbox(ctx, review.backend, invocation.command),
  }).finally(() => turn.release());
  announceSwept(ctx, `the review after iteration ${iteration}`, leftBehind(run));
  const sup = run.supervised;
  const tokens = run.meter.totals();
  const costUsd = run.meter.spentUsd() ?? 0;
  recordSpend(state, tokens, costUsd);
  book.cost_usd += costUsd;
  book.tokens += tokens.total;
  const killed = [...sup.killed, ...run.swept];
  // Judged like an iteration's agent: a limit or Ctrl-C that killed it ends the loop, not the review.
  const judged = judgeTurn(ctx, run, false);
  if (judged.kind === 'limit' || judged.kind === 'aborted') {
    const findings = [`the review was cut short: ${judged.stop.message}`];
    return { iteration, approved: false, findings, costUsd, tokens: tokens.total, stop: judged.stop, killed };
  }
  const parsed =
    sup.exitCode === 0
      ? parseVerdict(run.finalText)
      : {
          approved: false,
          findings: [
            `the review could not run (${review.backend} exited ${sup.exitCode ?? sup.killedBy}); ${sup.stderrTail.trim().split('\n').slice(-2).join(' ')}`,
          ],
        };
  const round: ReviewRound = parsed
    ? { iteration, approved: parsed.approved, findings: parsed.findings }
    : {
        iteration,
        approved: false,
        findings: ['the reviewer gave no verdict line (APPROVE or REQUEST_CHANGES)'],
      };
  book.rounds = round.approved ? [] : [...book.rounds, round];
  return { ...round, costUsd, tokens: tokens.total, stop: undefined, killed };
}

/** After max_rounds reviews in a row without approval: stop review_unresolved. */
export function reviewStop(ctx: RunContext): Stop | undefined {
  const review = ctx.config.gates.review;
  const open = ctx.state.review?.rounds ?? [];
  if (!review || open.length < review.max_rounds) return undefined;
  const last = open.at(-1);
  return stop(
    'review_unresolved',
    `${open.length} reviews by ${review.backend} in a row requested changes (gates.review.max_rounds: ${review.max_rounds}); last findings: ${last?.findings.join('; ') || '(none)'}`,
  );
}

/** The next prompt's part about the open review findings, or ''. */
export function reviewBlock(ctx: { state: Pick<LoopState, 'review'>; config: RalphConfig }): string {
  const open = ctx.state.review?.rounds ?? [];
  const last = open.at(-1);
  if (!last || !ctx.config.gates.review) return '';
  return `## Review findings (second opinion, round ${open.length} of ${ctx.config.gates.review.max_rounds})\nFix these before saying the work is done:\n${last.findings.map((f) => `- ${f}`).join('\n') || '- (the reviewer gave no details)'}`;
}

/** The review this iteration calls for (`when: every`, or `complete` when it would complete), run and announced. */
export async function secondOpinion(
  ctx: RunContext,
  iteration: number,
  completing: boolean,
): Promise<ReviewResult | undefined> {
  const review = ctx.config.gates.review;
  if (!review || !(review.when === 'every' || completing)) return undefined;
  const result = await runReview(ctx, iteration);
  // Cut short, it gave no verdict: the loop's end says why.
  if (result.stop) return result;
  ctx.emit({
    type: 'review.finished',
    iteration,
    backend: review.backend,
    approved: result.approved,
    findings: result.findings,
    round: ctx.state.review?.rounds.length ?? 0,
    costUsd: result.costUsd,
  });
  return result;
}

/** At the start of a run with gates.review: where its diff starts (kept across --resume). */
export function reviewAtStart(ctx: RunContext, head: string | null): void {
  if (ctx.config.gates.review && !ctx.state.review)
    ctx.state.review = { start_head: head, rounds: [], cost_usd: 0, tokens: 0 };
}
