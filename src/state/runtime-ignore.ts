import { readFileSync } from 'node:fs';
import { writeFileAtomicSync } from './io/atomic-write.ts';
import { RALPH_DIR, type RalphPaths, RUNTIME_PATHS } from './paths.ts';

const HEADER = [
  "# Ralph's runtime files: machine-local state, never committed (written by `ralph init`, completed",
  '# by `ralph run` before any agent runs). Prompts, validate.sh and agent/memories.md stay in git.',
];

/** The `.ralph/.gitignore` patterns for RUNTIME_PATHS (relative to `.ralph/`). */
export function runtimeIgnoreLines(): string[] {
  return RUNTIME_PATHS.map((p) => p.slice(RALPH_DIR.length + 1));
}

function readOptional(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Makes `.ralph/.gitignore` ignore every runtime path, so an agent's own `git add -A` never stages
 * them: writes the file when missing, appends only the missing patterns otherwise (the user's own
 * lines are kept as they are). Returns the patterns it added.
 */
export function ensureRuntimeIgnored(paths: RalphPaths): string[] {
  const current = readOptional(paths.gitignore);
  const wanted = runtimeIgnoreLines();
  if (current === null) {
    writeFileAtomicSync(paths.gitignore, `${[...HEADER, ...wanted].join('\n')}\n`);
    return wanted;
  }
  const present = new Set(current.split('\n').map((l) => l.trim()));
  const missing = wanted.filter((l) => !present.has(l));
  if (missing.length === 0) return [];
  const sep = current.length === 0 || current.endsWith('\n') ? '' : '\n';
  writeFileAtomicSync(paths.gitignore, `${current}${sep}${missing.join('\n')}\n`);
  return missing;
}
