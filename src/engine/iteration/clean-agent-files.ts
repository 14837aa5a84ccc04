import { isAbsolute, relative } from 'node:path';
import { redactLine } from '../../observe/redact.ts';
import { rewriteFile } from '../../state/io/rewrite-file.ts';
import { type StatCached, statCached } from '../../state/io/stat-cache.ts';
import { userMemoriesFile } from '../../state/memories/user-memories.ts';
import type { RunContext } from '../context/run-context.ts';
import { ralphScratchpadPaths } from '../context/workspace-context.ts';

/**
 * The agent's own files that the prompt reads, `ralph tools` lists and Ralph commits (memories.md),
 * with every secret the run knows of (the run's redaction) taken out. `ralph tools` redacts what it
 * writes, but only with the agent's environment, and an agent may write these files itself: so the
 * loop cleans them after each agent turn and before each prompt, as it does the events and
 * questions files. A file without a secret is not written. Returns the files it cleaned.
 */
export function cleanAgentFiles(ctx: RunContext): string[] {
  const { paths } = ctx;
  const files = [
    paths.tasks,
    paths.memories,
    userMemoriesFile(ctx.options.env ?? process.env),
    ...ralphScratchpadPaths(ctx.config, paths),
  ];
  const look = lookerOf(ctx);
  const cleaned = files.filter((file) => look(file));
  if (cleaned.length > 0)
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `redacted a secret the agent wrote into ${cleaned.map((f) => shown(paths.root, f)).join(', ')}`,
    });
  return cleaned;
}

/**
 * Per run, each file's clean (rewriteFile: true when it wrote) kept at the statKey it was looked at:
 * a file unchanged since then is not scanned again (a tens-of-kB memories file, twice an iteration).
 * The key holds the change time, which no process can set back, and a file changed within the racy
 * window is always scanned; what was written is keyed at its state before the write, never again.
 */
const lookers = new WeakMap<RunContext, StatCached<boolean>>();

function lookerOf(ctx: RunContext): StatCached<boolean> {
  let look = lookers.get(ctx);
  if (look === undefined) {
    const { redact, paths } = ctx;
    const lines = (t: string) => redactLines(t, redact);
    look = statCached((file) => rewriteFile(file, file === paths.tasks ? lines : redact));
    lookers.set(ctx, look);
  }
  return look;
}

/** A JSON-lines text with each line holding a secret redacted, still JSON (redactLine); CRLF endings kept. */
function redactLines(text: string, redact: (text: string) => string): string | undefined {
  let any = false;
  const lines = text.split('\n').map((raw) => {
    const cr = raw.endsWith('\r');
    const line = cr ? raw.slice(0, -1) : raw;
    const next = redactLine(line, redact);
    if (next === undefined) return raw;
    any = true;
    return cr ? `${next}\r` : next;
  });
  return any ? lines.join('\n') : undefined;
}

/** `file` relative to the workspace when it is inside it. */
function shown(root: string, file: string): string {
  const rel = relative(root, file);
  return rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}
