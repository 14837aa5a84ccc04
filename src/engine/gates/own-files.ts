import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { RalphError } from '../../errors.ts';
import { moveAside } from '../../state/io/move-aside.ts';
import type { RunContext } from '../context/run-context.ts';
import { ralphScratchpadPaths } from '../context/workspace-context.ts';

/**
 * Ralph's agent-facing files (tasks, memories, scratchpads, the events file) after the agent's turn:
 * each must be missing or a readable, writable regular file. One the agent turned into a directory,
 * a dangling link or an unreadable file is moved aside (renamed, nothing deleted) so Ralph can go on
 * settling the iteration, which fails. Returns what was moved, one line each, for the record. One
 * that cannot be moved aside stops the run with an error naming it: every later reader would fail on it.
 */
export function setAsideDamagedFiles(ctx: RunContext, iteration: number): string[] {
  const { paths, config, options } = ctx;
  const files = [paths.tasks, paths.memories, ...ralphScratchpadPaths(config, paths), ctx.eventsFile];
  const moved: string[] = [];
  for (const file of new Set(files)) {
    const damage = damageOf(file);
    if (!damage) continue;
    const rel = (p: string) => relative(options.workspace, p);
    try {
      const aside = moveAside(file, `${file}.damaged-${iteration}`);
      moved.push(`${rel(file)} (${damage}; moved to ${rel(aside)})`);
    } catch (error) {
      throw new RalphError(
        'state_corrupt',
        `iteration ${iteration} damaged Ralph's own file ${rel(file)} (${damage}) and it could not be moved aside (${(error as Error).message}): move or remove it by hand, then run again`,
      );
    }
  }
  return moved;
}

/** What is wrong with `file`, or undefined when it is missing or a regular file Ralph can read and write. */
function damageOf(file: string): string | undefined {
  try {
    lstatSync(file);
  } catch {
    return undefined; // missing: Ralph starts it afresh
  }
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return 'a directory';
    if (!stat.isFile()) return 'not a regular file';
    accessSync(file, constants.R_OK | constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ELOOP' ? 'a link to nowhere' : `unreadable (${code ?? 'error'})`;
  }
}

/** What the record and the next prompt say about an iteration that damaged Ralph's own files. */
export function damagedFilesFeedback(moved: readonly string[]): string {
  return `Iteration not accepted: it damaged Ralph's own files: ${moved.join(', ')}. Ralph keeps them as plain files; change them only through \`ralph tools\` and \`ralph emit\`, and take back from the moved copy what you need. Nothing of that iteration was committed.`;
}
