import pc from 'picocolors';
import { formatDuration } from '../../state/io/time-format.ts';
import { describeCheck, describeEvent, describeRunEnd } from '../describe-event.ts';
import type { LoopEvent, LoopEventHandlers } from '../events.ts';
import { handleEvent } from '../events.ts';
import type { Reporter } from '../reporter.ts';

/** How much the console reporter prints: `quiet` (-q), `normal`, or `verbose` (-v, the agent's output too). */
export type Verbosity = 'quiet' | 'normal' | 'verbose';

/** Where {@link createConsoleReporter} writes (`out` for progress, `err` for warnings and a failed run's end), how much, in colour or not. */
export interface ConsoleReporterOptions {
  out: (text: string) => void;
  err: (text: string) => void;
  verbosity: Verbosity;
  color: boolean;
}

/**
 * The plain line reporter: a banner per iteration (N/M, backend, elapsed), the agent's output with
 * -v, one result line per iteration, and an end summary. With -q only the summary, questions,
 * warnings and failures are printed. The wording of each line is `describeEvent`'s. Returns the
 * {@link Reporter} `ralph run` passes to `runLoop({ reporters })`; it writes only through `out`/`err`.
 */
export function createConsoleReporter(o: ConsoleReporterOptions): Reporter {
  const c = pc.createColors(o.color);
  const quiet = o.verbosity === 'quiet';
  const verbose = o.verbosity === 'verbose';
  const line = (text: string) => o.out(`${text}\n`);
  const say = (text: string) => (quiet ? undefined : line(text));
  const warn = (text: string, more = '') => o.err(`${c.yellow(`ralph: ${text}`)}${more}\n`);
  const d = describeEvent;
  const handlers: LoopEventHandlers = {
    'loop.started': (e) => say(c.bold(`ralph ${d(e)}`)),
    notice: (e) =>
      e.level === 'warn' ? o.err(`${c.yellow('ralph: warning:')} ${d(e)}\n`) : say(c.dim(`ralph: ${d(e)}`)),
    preflight: (e) => {
      if (quiet || e.checks.length === 0) return;
      line(c.bold('Pre-flight checks'));
      for (const ch of e.checks) {
        const mark = ch.level === 'ok' ? c.green('✓') : ch.level === 'warn' ? c.yellow('!') : c.red('✗');
        line(`${mark} ${describeCheck(ch)}`);
      }
    },
    'iteration.started': (e) => say(c.cyan(`── ${d(e)} ──`)),
    // The agent's own words with -v: its text as it wrote it, tool calls and errors described.
    'agent.event': ({ event: a }) => {
      if (!verbose) return;
      if (a.type === 'text') line(a.text);
      else if (a.type === 'tool_call')
        line(c.dim(`  ${describeEvent({ type: 'agent.event', iteration: 0, event: a })}`));
      else if (a.type === 'result' && a.text.trim()) line(c.bold(a.text.trimEnd()));
      else if (a.type === 'error') line(c.red(`  agent error: ${a.message}`));
    },
    'loop.parked': (e) => warn(`${d(e)}; \`ralph stop\` ends the wait`),
    'loop.idle': (e) => say(c.cyan(d(e))),
    'loop.woke': (e) => say(c.dim(d(e))),
    // Answers and approvals show as `human.answered`; the rest is acknowledged where it arrives.
    'control.received': (e) => {
      if (!['answer', 'approve', 'reject'].includes(e.kind)) say(c.dim(`  ${d(e)}`));
    },
    'loop.paused': (e) => line(c.cyan(d(e))),
    'loop.resumed': (e) => say(c.dim(d(e))),
    // Always shown, even with -q: the loop waits for the person reading this.
    'human.question': (e) => {
      const how =
        e.kind === 'question'
          ? `ralph answer ${e.id} "…"${e.options ? ` (one of: ${e.options.join(', ')})` : ''}`
          : `ralph approve ${e.id}, or ralph reject ${e.id} "why"`;
      const until = e.expiresAt ? ` (waits ${formatDuration(Math.max(0, e.expiresAt - Date.now()))})` : '';
      warn(d(e), `\n  → ${how}${until}`);
    },
    'human.answered': (e) => say(c.dim(`  ${d(e)}`)),
    'human.progress': (e) => say(c.cyan(`  ${d(e)}`)),
    'review.finished': (e) => (e.approved ? line(c.dim(`  ${d(e)}`)) : warn(d(e))),
    'limit.warning': (e) => warn(d(e)),
    'hook.started': (e) => say(c.dim(`  ${d(e)}`)),
    // A failed hook is always shown: it warned, blocked or suspended the loop.
    'hook.finished': (e) => (e.disposition === 'pass' ? say(c.dim(`  ${d(e)}`)) : warn(d(e))),
    'agent.heartbeat': (e) => say(c.dim(`  ${d(e)}`)),
    'gate.output': (e) => {
      if (verbose) o.out(e.text);
    },
    'gate.finished': (e) => {
      if (e.summary.passed) return say(c.dim(`  ${d(e)}`));
      // A failed gate is always shown with its output (it may stop the loop); with -v it was live.
      const output = verbose ? '' : `${e.output.trimEnd().replace(/^/gm, '  | ')}\n`;
      o.err(`${c.red(`ralph: ${d(e)}`)}\n${output}`);
    },
    'git.committed': (e) => say(c.dim(`  ${d(e)}`)),
    // Seed 003's lines: `✓ Created draft PR #1`; a wait for a merge is always shown, as a question is.
    'forge.pull_request': (e) =>
      e.action === 'waiting'
        ? line(c.cyan(d(e)))
        : e.action === 'closed'
          ? warn(d(e))
          : say(`${c.green('✓')} ${d(e)}`),
    'agent.output': (e) => {
      if (verbose && e.stream === 'stderr') o.err(c.dim(e.text));
    },
    'iteration.finished': (e) => {
      if (quiet) return;
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
      line(`${mark} ${d(e)}`);
      // Why the agent failed, in its own words (with -v its stderr was already shown live).
      if (r.stderr_tail && !verbose) line(c.dim(r.stderr_tail.replace(/^/gm, '  | ')));
    },
    'loop.finished': (e) => {
      const color = e.exitCode === 0 ? c.green : e.exitCode === 2 ? c.yellow : c.red;
      const end = describeRunEnd(e);
      // A run that failed (exit 1) says why on stderr, as a fatal error of any command does.
      (e.exitCode === 1 ? (text: string) => o.err(`${text}\n`) : line)(
        `${color(c.bold(`ralph: ${end.stop}`))}\n` +
          end.facts.map((fact) => `  ${fact}\n`).join('') +
          c.dim(`  log ${e.logFile}`) +
          // A message that already says how to go on is not followed by the same advice.
          (e.next && !e.message.includes(e.next) ? `\n  next: ${e.next}` : ''),
      );
    },
    // The file sinks' business: nothing to show a person watching the run.
    'hat.activated': () => {},
    'prompt.assembled': () => {},
    'agent.spawned': () => {},
    'event.published': () => {},
    'event.malformed': () => {},
    'completion.decided': () => {},
    'gate.started': () => {},
    'git.pushed': () => {},
  };
  return { onEvent: (e: LoopEvent) => handleEvent(handlers, e) };
}
