import type { AgentEvent } from '../backends/types.ts';
import { formatDuration, localTime } from '../state/io/time-format.ts';
import type { LoopEvent, LoopEventHandlers, LoopFinishedEvent, PullRequestSummary } from './events.ts';
import { formatCost, formatNumber, spendByModel, stopText } from './format.ts';
import type { ParallelEvent, WorkerView } from './parallel-events.ts';

/** Payloads, agent text and tool input are cut here: a description is a line, not a dump. */
const SHORT_MAX = 200;

/**
 * The one line of text that says what an event is, shared by the console, the run log, the
 * diagnostics log, fleet and parallel lines and the dashboard (each may add colour or a prefix).
 * Never empty, never more than one line: newlines in messages become ` ⏎ `.
 */
export function describeEvent(event: LoopEvent | ParallelEvent): string {
  const text =
    event.type in LOOP
      ? (LOOP[event.type as LoopEvent['type']] as (e: LoopEvent) => string)(event as LoopEvent)
      : (PARALLEL[event.type as ParallelEvent['type']] as (e: ParallelEvent) => string)(
          event as ParallelEvent,
        );
  const line = text.trim().replace(/\s*[\n\r\v\f\u0085\u2028\u2029]+\s*/g, ' ⏎ ');
  return line === '' ? event.type : line;
}

const PR_STATUS = {
  draft: 'draft',
  open: 'open',
  ready: 'ready for review',
  merged: 'merged',
  closed: 'closed unmerged',
};

/** The run's pull requests in one line: `PRs created: 2 — #12 ready for review, #13 draft`. */
export function describePullRequests(prs: readonly PullRequestSummary[]): string {
  return `PRs created: ${prs.length} — ${prs.map((p) => `#${p.number} ${PR_STATUS[p.status]}`).join(', ')}`;
}

/**
 * The end-of-run summary in the one wording the console and the run log share: the stop as
 * {@link describeEvent} says it, then one phrase per fact, each its own line on the console and
 * joined by ` · ` in the log. `iterations 2 · duration 4m 12s · tokens 1,200 (in 1,000, out 200) ·
 * cost $0.0400 · exit 0`, then with a model ladder `spend by model: …`, with a checklist the
 * milestones and tasks completed, with pull requests `PRs created: …`.
 */
export function describeRunEnd(e: LoopFinishedEvent): { stop: string; facts: string[] } {
  const t = e.tokens;
  const p = e.progress;
  return {
    stop: describeEvent(e),
    facts: [
      `iterations ${e.iterations} · duration ${formatDuration(e.elapsedMs)} · tokens ${formatNumber(t.total)} ` +
        `(in ${formatNumber(t.input)}, out ${formatNumber(t.output)}) · cost ${formatCost(e.costUsd)} · exit ${e.exitCode}`,
      ...(e.costByModel ? [`spend by model: ${spendByModel(e.costByModel)}`] : []),
      ...(p
        ? [
            `milestones completed ${p.milestonesCompletedThisRun} (${p.milestonesDone}/${p.milestonesTotal} done) · ` +
              `tasks completed ${p.tasksCompletedThisRun} (${p.tasksDone}/${p.tasksTotal} done)`,
          ]
        : []),
      ...(e.pullRequests ? [describePullRequests(e.pullRequests)] : []),
    ],
  };
}

/** A milestone's pull request event as one phrase: `Created draft PR #1 (Foundation) → <url>`. */
function describePullRequest(e: Extract<LoopEvent, { type: 'forge.pull_request' }>): string {
  const pr = `PR #${e.number}`;
  switch (e.action) {
    case 'opened':
      return `Created ${e.draft ? 'draft ' : ''}${pr} (${e.milestone}, ${e.branch} → ${e.base}) ${e.url}`;
    case 'adopted':
      return `Adopted ${pr} (${e.milestone}), already open for ${e.branch} ${e.url}`;
    case 'ready':
      return `${pr} ready for review (${e.milestone}) ${e.url}`;
    case 'waiting':
      return `waiting for ${pr} to be merged (${e.milestone}) ${e.url} — \`ralph resume\` checks at once, \`ralph stop\` ends the loop`;
    case 'merged':
      return `${pr} merged into ${e.base} (${e.milestone})`;
    case 'closed':
      return `${pr} was closed without being merged (${e.milestone}) ${e.url}`;
  }
}

/** A worker slot as one phrase: `w1 T-3: iteration 2 (running)`. */
export function describeWorker(v: WorkerView): string {
  return `${v.worker} ${v.task ?? '(no task)'}: iteration ${v.iteration} (${v.status})`;
}

/** A check as one phrase (`git: clean tree`); the console puts a mark before it. */
export function describeCheck(check: { check: string; message: string }): string {
  return `${check.check}: ${check.message}`;
}

const LOOP: LoopEventHandlers<string> = {
  'loop.started': (e) =>
    `${e.resumed ? 'resuming' : 'starting'} run ${e.runId} · backend ${e.backend} · branch ${e.branch ?? 'n/a'} · log ${e.logFile}`,
  notice: (e) => e.message,
  preflight: (e) =>
    `pre-flight checks: ${e.checks.map((c) => `${c.level} ${describeCheck(c)}`).join('; ') || 'none'}`,
  'iteration.started': (e) => {
    const p = e.progress;
    const checklist = p
      ? p.tasksTotal === 0
        ? ' · no `- [ ]` tasks in the design document yet'
        : ` · ${p.milestone ?? 'all milestones done'} · tasks ${p.tasksDone}/${p.tasksTotal}`
      : '';
    return `iteration ${e.iteration}/${e.maxIterations} · ${e.hat ? `${e.hat} · ` : ''}${e.backend}${checklist} · ${formatDuration(e.elapsedMs)} elapsed`;
  },
  'hat.activated': (e) =>
    `hat ${e.hatId}${e.hatName && e.hatName !== e.hatId ? ` (${e.hatName})` : ''} activated by ${e.triggeredBy.join(', ') || 'nothing'}`,
  'prompt.assembled': (e) =>
    `prompt of iteration ${e.iteration}${e.hat ? ` (${e.hat})` : ''}: ${formatNumber(e.bytes)} bytes, scratchpad ${e.scratchpad === null ? 'none' : `${formatNumber(e.scratchpad.length)} chars`}`,
  'agent.spawned': (e) => `agent started (pid ${e.pid}${e.sandboxed ? ', sandboxed' : ''}): ${e.command}`,
  'event.published': (e) =>
    `event ${e.topic}${e.source === 'agent' ? '' : ` (${e.source})`}${e.payload === null || e.payload === undefined || e.payload === '' ? '' : `: ${short(e.payload)}`}`,
  'event.malformed': (e) => `malformed event line (${e.error}): ${short(e.line)}`,
  'completion.decided': (e) =>
    `completion ${e.accepted ? 'accepted' : 'rejected'}${e.reasons.length ? `: ${e.reasons.join('; ')}` : ''}`,
  'gate.started': (e) => `${e.gate} started: ${e.command}`,
  'gate.output': (e) => `${e.gate} output: ${short(e.text)}`,
  'gate.finished': ({ gate, summary: g }) =>
    g.passed
      ? `${gate} passed (${g.command})`
      : `${gate} failed (${g.timed_out ? 'timed out' : `exit ${g.exit_code}`}): ${g.command}`,
  'hook.started': (e) =>
    `hook ${e.name} (${e.phaseEvent}) started${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}: ${e.command}`,
  'hook.finished': (e) =>
    e.disposition === 'pass'
      ? `hook ${e.name} (${e.phaseEvent}) passed in ${formatDuration(e.durationMs)}`
      : `hook ${e.name} (${e.phaseEvent}) failed (${e.failure ?? 'failed'}; on_error: ${e.disposition})${e.output.trim() ? `: ${short(e.output.trim())}` : ''}`,
  'git.committed': (e) => `${inRepo(e.repo)}committed ${e.commit.slice(0, 7)} ${e.message.split('\n')[0]}`,
  'git.pushed': (e) => `${inRepo(e.repo)}pushed to ${e.remote}/${e.branch}`,
  'forge.pull_request': (e) => describePullRequest(e),
  'loop.parked': (e) =>
    `parked — ${e.message}; resuming iteration ${e.iteration} at ${localTime(e.until, 'HH:mm:ss')} (in ${formatDuration(e.remainingMs)})`,
  'control.received': (e) => `← ${e.kind} from ${e.source}${e.text ? `: ${e.text.split('\n')[0]}` : ''}`,
  'loop.paused': () => 'paused — `ralph resume` goes on, `ralph stop` ends the loop',
  'loop.resumed': (e) => `resumed (was ${e.from.replace(/_/g, ' ')})`,
  'human.question': (e) => `waiting for a human — ${e.kind} ${e.id}: ${e.text}`,
  'human.progress': (e) =>
    `progress note ${e.id}${e.channel === 'none' ? ' (no human channel: recorded only)' : ` → ${e.channel}`}: ${e.text}`,
  'human.answered': (e) =>
    `${e.id} ${e.by === 'timeout' ? 'timed out' : `answered by ${e.by}`}: ${e.answer}${e.reason ? ` — ${e.reason}` : ''}`,
  'review.finished': (e) =>
    e.approved
      ? `review by ${e.backend}: approved`
      : `review by ${e.backend} requested changes (round ${e.round})${e.findings.length ? `: ${e.findings.join('; ')}` : ''}`,
  'limit.warning': (e) => `limit warning — ${e.message}`,
  'loop.idle': (e) => {
    const where = e.watch.length > 0 ? ` in ${e.watch.join(', ')} (or a new event)` : '';
    const scan =
      e.cooldownMs > 0
        ? ` (next scan in ${formatDuration(e.cooldownMs)})`
        : e.watch.length > 0
          ? ''
          : ' (scanning again now)';
    return `idle — waiting for changes${where}${scan}; \`ralph stop\` ends the loop`;
  },
  'loop.woke': (e) => `woke: ${e.reason}`,
  'agent.heartbeat': (e) =>
    `agent running ${formatDuration(e.runningMs)}, last output ${formatDuration(e.silentMs)} ago`,
  'agent.output': (e) => `agent ${e.stream}: ${short(e.text)}`,
  'agent.event': (e) => describeAgentEvent(e.event),
  'iteration.finished': ({ record: r, totals }) =>
    `iteration ${r.iteration} ${r.verdict}${r.reason ? ` — ${r.reason}` : ''} · ${formatDuration(r.duration_ms)} · ${formatNumber(r.tokens.total)} tokens${r.cost_usd === null ? '' : ` · ${formatCost(r.cost_usd)}`} · total ${formatNumber(totals.tokens)} tokens, ${formatCost(totals.costUsd)}`,
  'loop.finished': (e) => stopText(e.stopReason, e.message),
};

type ParallelHandlers = { [K in ParallelEvent['type']]: (e: Extract<ParallelEvent, { type: K }>) => string };

const PARALLEL: ParallelHandlers = {
  'parallel.started': (e) =>
    `parallel run ${e.id}${e.resumed ? ' (resumed)' : ''} — ${e.workers} worker(s), ${e.source} tasks, merging into ${e.target}`,
  'worker.started': (e) =>
    `${e.worker} ${e.adopted ? 'still works on' : e.kind === 'resolve' ? 'resolves a merge conflict of' : 'took'} ${e.task} "${e.title}" (pid ${e.pid}, worktree .ralph/worktrees/${e.worktree})`,
  'worker.finished': (e) =>
    `${e.worker} finished ${e.task}: ${e.outcome} (${e.iterations} iteration(s), ${formatCost(e.costUsd)})`,
  'workers.progress': (e) =>
    e.workers
      .filter((v) => v.task !== null)
      .map(describeWorker)
      .join('; ') || 'no worker has a task',
  'task.state': (e) => `task ${e.task} "${e.title}": ${e.state}${e.reason ? ` — ${e.reason}` : ''}`,
  'merge.started': (e) => `merge ${e.task} "${e.title}": rebasing onto the target`,
  'merge.conflict': (e) => `merge ${e.task}: conflict in ${e.files.join(', ')} (attempt ${e.attempt})`,
  'merge.gates': (e) => `merge ${e.task}: gates ${e.phase}${e.summary ? ` — ${e.summary}` : ''}`,
  'merge.merged': (e) => `merged ${e.task} "${e.title}" at ${e.commit.slice(0, 8)}`,
  'merge.pull_request': (e) => {
    const pr = `PR #${e.number}`;
    const what = {
      opened: `opened ${pr} (${e.url})`,
      adopted: `adopted the open ${pr} (${e.url})`,
      waiting: `waiting for ${pr} to be merged (${e.url}; \`ralph resume\` checks at once)`,
      merged: `${pr} merged`,
      closed: `${pr} was closed without being merged`,
      unreachable: `could not read ${pr}: ${e.message ?? 'no answer'} (asking again at the next poll)`,
    }[e.action];
    return `merge ${e.task} "${e.title}": ${what}`;
  },
  'parallel.limit': (e) => e.message,
  'parallel.finished': (e) =>
    `parallel run ${e.reason} — ${e.merged}/${e.total} task(s) merged. ${e.message}`,
};

function describeAgentEvent(a: AgentEvent): string {
  switch (a.type) {
    case 'system':
      return `agent session${a.model ? ` on ${a.model}` : ''}${a.sessionId ? ` (${a.sessionId})` : ''}`;
    case 'text':
      return `agent: ${short(a.text)}`;
    case 'tool_call':
      return `→ ${a.name}${a.input === undefined ? '' : ` ${short(a.input)}`}`;
    case 'tool_result':
      return `tool result${a.isError ? ' (error)' : ''}: ${short(a.output)}`;
    case 'usage':
      return `usage: ${formatNumber(a.usage.inputTokens)} in, ${formatNumber(a.usage.outputTokens)} out, cache ${formatNumber(a.usage.cacheReadTokens + a.usage.cacheWriteTokens)}`;
    case 'result':
      return `agent result${a.isError ? ' (error)' : ''}${a.costUsd === undefined ? '' : ` ${formatCost(a.costUsd)}`}: ${short(a.text)}`;
    case 'error':
      return `agent error: ${a.message}`;
    case 'rate_limit':
      return `agent rate limit${a.resetAt ? ` until ${new Date(a.resetAt).toISOString()}` : ''}: ${a.message}`;
  }
}

/** A value as a short single line: strings as they are, anything else as JSON. */
function short(v: unknown): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > SHORT_MAX ? `${one.slice(0, SHORT_MAX)}…` : one;
}

/** `api: ` before a git line of one repository of `repos`; nothing for the workspace. */
function inRepo(repo: string | undefined): string {
  return repo === undefined ? '' : `${repo}: `;
}
