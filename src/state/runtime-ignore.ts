import { writeFileAtomicSync } from './io/atomic-write.ts';
import { readOptional } from './io/read-optional.ts';
import { RALPH_DIR, type RalphPaths, RUNTIME_PATHS } from './paths.ts';

const HEADER = [
  "# Ralph's runtime files: machine-local state, never committed (written by `ralph init`, completed",
  '# by `ralph run` before any agent runs). Prompts, validate.sh and agent/memories.md stay in git.',
];
/** The file written by `ralph run` where `ralph init` never ran: it ignores itself too. */
const LOCAL_HEADER = [
  "# Ralph's runtime files: machine-local state, never committed. Written by `ralph run` where",
  '# `ralph init` never ran, so it ignores itself too and git shows nothing of .ralph/; `ralph init`',
  '# drops the `.gitignore` line at the end, so this file can be committed with your prompts.',
];
/** The line of a self-ignoring file (git still reads an ignored .gitignore). */
const SELF = '.gitignore';

/**
 * Who the file is for: `commit` (`ralph init`, `ralph new`: committed with the project's prompts),
 * or `local` (`ralph run`: a workspace that keeps nothing of Ralph in git, so the file ignores itself).
 */
export type RuntimeIgnoreUse = 'commit' | 'local';

/** What `ensureRuntimeIgnored` did: the runtime patterns it added, and whether the file changed at all. */
export interface RuntimeIgnoreChange {
  added: string[];
  changed: boolean;
}

/** The `.ralph/.gitignore` patterns for RUNTIME_PATHS (relative to `.ralph/`). */
export function runtimeIgnoreLines(): string[] {
  return RUNTIME_PATHS.map((p) => p.slice(RALPH_DIR.length + 1));
}

/**
 * Makes `.ralph/.gitignore` ignore every runtime path, so an agent's own `git add -A` never stages
 * them: writes the file when missing (for `local` use one that ignores itself too), appends only
 * the missing patterns otherwise (the user's own lines are kept as they are). For `commit` use, a
 * file `ralph run` wrote stops ignoring itself.
 */
export function ensureRuntimeIgnored(
  paths: RalphPaths,
  use: RuntimeIgnoreUse = 'local',
): RuntimeIgnoreChange {
  const existing = readOptional(paths.gitignore, 'absent');
  const wanted = runtimeIgnoreLines();
  if (existing === undefined) {
    const lines = use === 'local' ? [...LOCAL_HEADER, ...wanted, SELF] : [...HEADER, ...wanted];
    writeFileAtomicSync(paths.gitignore, `${lines.join('\n')}\n`);
    return { added: wanted, changed: true };
  }
  let current = existing;
  if (use === 'commit' && current.split('\n').some((l) => l.trim() === SELF)) {
    const kept = current.split('\n').filter((l) => l.trim() !== SELF && !LOCAL_HEADER.includes(l));
    current = current.startsWith(LOCAL_HEADER[0] as string)
      ? [...HEADER, ...kept].join('\n')
      : kept.join('\n');
  }
  const present = new Set(current.split('\n').map((l) => l.trim()));
  const missing = wanted.filter((l) => !present.has(l));
  const sep = current.length === 0 || current.endsWith('\n') ? '' : '\n';
  const next = missing.length === 0 ? current : `${current}${sep}${missing.join('\n')}\n`;
  if (next === existing) return { added: [], changed: false };
  writeFileAtomicSync(paths.gitignore, next);
  return { added: missing, changed: true };
}
