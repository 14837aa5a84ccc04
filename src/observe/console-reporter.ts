import pc from 'picocolors';
import { formatDuration } from '../state/time-format.ts';
import type { LoopEvent, LoopEventListener } from './events.ts';
import { formatCost, formatNumber, stopText } from './format.ts';

export type Verbosity = 'quiet' | 'normal' | 'verbose';

export interface ConsoleReporterOptions {
  out: (text: string) => void;
  err: (text: string) => void;
  verbosity: Verbosity;
  color: boolean;
}

/**
 * The plain line reporter: a banner per iteration (N/M, backend, elapsed), the agent's output with
 * -v, one result line per iteration, and an end summary. With -q only the summary is printed.
 */
export function createConsoleReporter(o: ConsoleReporterOptions): LoopEventListener {
  const c = pc.createColors(o.color);
  const quiet = o.verbosity === 'quiet';
  const verbose = o.verbosity === 'verbose';
  const line = (text: string) => o.out(`${text}\n`);
  return (e: LoopEvent) => {
    switch (e.type) {
      case 'loop.started':
        if (!quiet)
          line(
            c.bold(`ralph ${e.resumed ? 'resuming' : 'starting'} run ${e.runId}`) +
              c.dim(` · backend ${e.backend} · branch ${e.branch ?? 'n/a'} · log ${e.logFile}`),
          );
        break;
      case 'notice':
        if (e.level === 'warn') o.err(`${c.yellow('ralph: warning:')} ${e.message}\n`);
        else if (!quiet) line(c.dim(`ralph: ${e.message}`));
        break;
      case 'preflight':
        if (quiet || e.checks.length === 0) break;
        line(c.bold('Pre-flight checks'));
        for (const ch of e.checks) {
          const mark = ch.level === 'ok' ? c.green('✓') : ch.level === 'warn' ? c.yellow('!') : c.red('✗');
          line(`${mark} ${ch.check}: ${ch.message}`);
        }
        break;
      case 'iteration.started': {
        if (quiet) break;
        const p = e.progress;
        const checklist = p
          ? p.tasksTotal === 0
            ? ' · no `- [ ]` tasks in the design document yet'
            : ` · ${p.milestone ?? 'all milestones done'} · tasks ${p.tasksDone}/${p.tasksTotal}`
          : '';
        line(
          c.cyan(
            `── iteration ${e.iteration}/${e.maxIterations} · ${e.hat ? `${e.hat} · ` : ''}${e.backend}${checklist} · ${formatDuration(e.elapsedMs)} elapsed ──`,
          ),
        );
        break;
      }
      case 'agent.event':
        if (!verbose) break;
        if (e.event.type === 'text') line(e.event.text);
        else if (e.event.type === 'tool_call') line(c.dim(`  → ${e.event.name} ${summarize(e.event.input)}`));
        else if (e.event.type === 'result' && e.event.text.trim()) line(c.bold(e.event.text.trimEnd()));
        else if (e.event.type === 'error') line(c.red(`  agent error: ${e.event.message}`));
        break;
      case 'loop.parked': {
        const at = new Date(e.until).toLocaleTimeString();
        o.err(
          `${c.yellow('ralph: parked')} — ${e.message}; resuming iteration ${e.iteration} at ${at} (in ${formatDuration(e.remainingMs)}); \`ralph stop\` ends the wait\n`,
        );
        break;
      }
      case 'loop.idle': {
        if (quiet) break;
        const where = e.watch.length > 0 ? ` in ${e.watch.join(', ')} (or a new event)` : '';
        const scan =
          e.cooldownMs > 0
            ? ` (next scan in ${formatDuration(e.cooldownMs)})`
            : e.watch.length > 0
              ? ''
              : ' (scanning again now)';
        line(c.cyan(`idle — waiting for changes${where}${scan}; \`ralph stop\` ends the loop`));
        break;
      }
      case 'loop.woke':
        if (!quiet) line(c.dim(`woke: ${e.reason}`));
        break;
      case 'control.received':
        // Answers and approvals show as `human.answered`; the rest is acknowledged where it arrives.
        if (!quiet && !['answer', 'approve', 'reject'].includes(e.kind))
          line(
            c.dim(
              `  ← ${e.kind === 'guidance' ? 'guidance' : e.kind} from ${e.source}${e.text ? `: ${e.text.split('\n')[0]}` : ''}`,
            ),
          );
        break;
      case 'loop.paused':
        line(c.cyan('paused — `ralph resume` goes on, `ralph stop` ends the loop'));
        break;
      case 'loop.resumed':
        if (!quiet) line(c.dim(`resumed (was ${e.from.replace(/_/g, ' ')})`));
        break;
      case 'human.question': {
        // Always shown, even with -q: the loop waits for the person reading this.
        const how =
          e.kind === 'question'
            ? `ralph answer ${e.id} "…"${e.options ? ` (one of: ${e.options.join(', ')})` : ''}`
            : `ralph approve ${e.id}, or ralph reject ${e.id} "why"`;
        const until = e.expiresAt ? ` (waits ${formatDuration(Math.max(0, e.expiresAt - Date.now()))})` : '';
        o.err(
          `${c.yellow(`ralph: waiting for a human — ${e.kind}`)} ${e.id}: ${e.text}\n  → ${how}${until}\n`,
        );
        break;
      }
      case 'human.answered':
        if (!quiet)
          line(
            c.dim(
              `  ${e.id} ${e.by === 'timeout' ? 'timed out' : `answered by ${e.by}`}: ${e.answer}${e.reason ? ` — ${e.reason}` : ''}`,
            ),
          );
        break;
      case 'review.finished':
        if (e.approved) line(c.dim(`  review by ${e.backend}: approved`));
        else
          o.err(
            `${c.yellow(`ralph: review by ${e.backend} requested changes (round ${e.round})`)}${e.findings.map((f) => `\n  - ${f}`).join('')}\n`,
          );
        break;
      case 'limit.warning':
        o.err(`${c.yellow('ralph: limit warning')} — ${e.message}\n`);
        break;
      case 'agent.heartbeat':
        if (!quiet)
          line(
            c.dim(
              `  agent running ${formatDuration(e.runningMs)}, last output ${formatDuration(e.silentMs)} ago`,
            ),
          );
        break;
      case 'gate.output':
        if (verbose) o.out(e.text);
        break;
      case 'gate.finished': {
        const g = e.summary;
        if (g.passed) {
          if (!quiet) line(c.dim(`  ${e.gate} passed (${g.command})`));
          break;
        }
        // A failed gate is always shown with its output: it may stop the loop.
        const why = g.timed_out ? 'timed out' : `exit ${g.exit_code}`;
        o.err(
          `${c.red(`ralph: ${e.gate} failed (${why}): ${g.command}`)}\n${verbose ? '' : e.output.trimEnd().replace(/^/gm, '  | ')}${verbose ? '' : '\n'}`,
        );
        break;
      }
      case 'git.committed':
        if (!quiet) line(c.dim(`  committed ${e.commit.slice(0, 7)} ${e.message.split('\n')[0]}`));
        break;
      case 'agent.output':
        if (verbose && e.stream === 'stderr') {
          o.err(c.dim(e.text));
        }
        break;
      case 'iteration.finished': {
        if (quiet) break;
        const r = e.record;
        const ok = r.verdict === 'success' || r.verdict === 'complete';
        // An idle scan found nothing to do: no reason line beyond what loop.idle says next.
        const mark =
          r.verdict === 'idle'
            ? c.cyan('○')
            : ok
              ? c.green('✓')
              : r.verdict === 'failure'
                ? c.red('✗')
                : c.yellow('■');
        const cost = r.cost_usd === null ? '' : ` · ${formatCost(r.cost_usd)}`;
        const reason = r.reason ? ` — ${r.reason}` : '';
        line(
          `${mark} iteration ${r.iteration} ${r.verdict}${reason} · ${formatDuration(r.duration_ms)} · ${formatNumber(r.tokens.total)} tokens${cost}` +
            c.dim(` · total ${formatNumber(e.totals.tokens)} tokens, ${formatCost(e.totals.costUsd)}`),
        );
        // Why the agent failed, in its own words (with -v its stderr was already shown live).
        if (r.stderr_tail && !verbose) line(c.dim(r.stderr_tail.replace(/^/gm, '  | ')));
        break;
      }
      case 'loop.finished': {
        const color = e.exitCode === 0 ? c.green : e.exitCode === 2 ? c.yellow : c.red;
        line(
          `${color(c.bold(`ralph: ${stopText(e.stopReason, e.message)}`))}\n` +
            `  iterations ${e.iterations} · duration ${formatDuration(e.elapsedMs)} · tokens ${formatNumber(e.tokens.total)} ` +
            `(in ${formatNumber(e.tokens.input)}, out ${formatNumber(e.tokens.output)}) · cost ${formatCost(e.costUsd)} · exit ${e.exitCode}\n` +
            (e.progress
              ? `  milestones completed ${e.progress.milestonesCompletedThisRun} (${e.progress.milestonesDone}/${e.progress.milestonesTotal} done) · ` +
                `tasks completed ${e.progress.tasksCompletedThisRun} (${e.progress.tasksDone}/${e.progress.tasksTotal} done)\n`
              : '') +
            c.dim(`  log ${e.logFile}`) +
            // A message that already says how to go on is not followed by the same advice.
            (e.next && !e.message.includes(e.next) ? `\n  next: ${e.next}` : ''),
        );
        break;
      }
      default:
        break;
    }
  };
}

function summarize(input: unknown): string {
  if (input === undefined) return '';
  const text = JSON.stringify(input);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
