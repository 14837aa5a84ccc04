import { closeSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatDuration, localTime } from '../../state/io/time-format.ts';
import { openOutputFile, outputWrite } from '../../state/io/write-faults.ts';
import { describeEvent, describeRunEnd } from '../describe-event.ts';
import { formatNumber } from '../format.ts';
import type { Reporter } from '../reporter.ts';

const RULE = '━'.repeat(40);

const localStamp = (ms: number) => localTime(ms, 'YYYY-MM-DD HH:mm:ss');

/** Picks the next free `YYYY-MM-DD_NNN.log` in `dir` for the given day. */
export function nextLogFile(dir: string, now: Date): string {
  const day = localTime(now, 'YYYY-MM-DD');
  mkdirSync(dir, { recursive: true });
  let max = 0;
  for (const name of readdirSync(dir)) {
    const m = /^(\d{4}-\d{2}-\d{2})_(\d{3,})\.log$/.exec(name);
    if (m && m[1] === day) max = Math.max(max, Number(m[2]));
  }
  return join(dir, `${day}_${String(max + 1).padStart(3, '0')}.log`);
}

/**
 * The human log of a run (seed 002 format): per iteration a header (iteration, mode, branch,
 * start), the full agent output, and a footer (end, duration, commit, tokens, context %, cost).
 * Written synchronously so it survives a crash of Ralph itself.
 */
export function createRunLogSink(file: string): Reporter & { close(): void } {
  const fd = openOutputFile(file);
  const write = (s: string) => outputWrite(fd, file, s);
  let needsNewline = false;
  return {
    onEvent(e) {
      switch (e.type) {
        case 'loop.started':
          write(
            `# ralph run ${e.runId}${e.resumed ? ' (resumed)' : ''} · backend ${e.backend} · ${localStamp(e.at)}\n\n`,
          );
          break;
        case 'notice':
          write(`[ralph ${e.level}] ${describeEvent(e)}\n`);
          break;
        case 'iteration.started':
          write(
            `${RULE}\nIteration: ${e.iteration}\nMode: ${e.hat ?? 'solo'}\nBranch: ${e.branch ?? '(not a git repository)'}\nStarted: ${localStamp(e.startedAt)}\n${RULE}\n\n`,
          );
          needsNewline = false;
          break;
        case 'agent.output':
        case 'gate.output':
          write(e.text);
          needsNewline = !e.text.endsWith('\n');
          break;
        case 'gate.started':
        case 'hook.started':
        case 'hook.finished':
        // The agent's note to the human: the run log is where it is kept when no channel is set up.
        case 'human.progress':
          write(`${needsNewline ? '\n' : ''}[ralph] ${describeEvent(e)}\n`);
          needsNewline = false;
          break;
        case 'gate.finished':
          write(`${needsNewline ? '\n' : ''}[ralph] ${describeEvent(e)}\n`);
          needsNewline = false;
          break;
        case 'git.committed':
        case 'git.pushed':
          write(`[ralph] ${describeEvent(e)}\n`);
          break;
        case 'iteration.finished': {
          const r = e.record;
          const ctx = r.context_pct === null ? 'n/a' : `${r.context_pct.toFixed(1)}%`;
          write(
            `${needsNewline ? '\n' : ''}\n${RULE}\nCompleted: ${localStamp(Date.parse(r.finished_at))}\n` +
              `Duration: ${formatDuration(r.duration_ms)}\nCommit: ${r.head_after?.slice(0, 7) ?? 'n/a'}\n` +
              `Tokens: ${formatNumber(r.tokens.total)} (in ${formatNumber(r.tokens.input)}, out ${formatNumber(r.tokens.output)}, cache ${formatNumber(r.tokens.cache_read + r.tokens.cache_write)})\n` +
              `Context: ${ctx}\nCost: ${r.cost_usd === null ? 'n/a' : `$${r.cost_usd.toFixed(4)}`}\n` +
              `Result: ${r.verdict}${r.reason ? ` — ${r.reason}` : ''}\n${RULE}\n\n`,
          );
          break;
        }
        case 'loop.finished': {
          const end = describeRunEnd(e);
          write(`# stopped: ${[end.stop, ...end.facts].join(' · ')}\n`);
          break;
        }
        default:
          break;
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
