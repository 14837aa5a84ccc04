import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RalphError } from '../../errors.ts';
import { type ConfigMark, configChangesSince } from '../../git/workspace-guard/program-config.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { removeFile } from '../../state/io/file-writes.ts';
import { hashFile } from '../../state/io/stat-cache.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { keepCopies } from './checks/protected-files.ts';

/** Copies of the mark's files in `store` (content-addressed, the protected files' store), to put them back. */
export function keepConfigCopies(store: string, mark: ConfigMark): void {
  keepCopies('/', store, Object.fromEntries(Object.entries(mark.files).filter(([, h]) => h)));
}

/**
 * At the start of a run in a repository, with the config as it is now (`now`, read before the
 * state): a new run's mark is it; a resumed run keeps the settings it started with (preflight
 * compared them) and takes the files' bytes as they are. Copies are kept to put them back.
 */
export function gitConfigAtStart(ctx: RunContext, now: ConfigMark | undefined): void {
  if (!now) return;
  keepConfigCopies(ctx.paths.protectedStore, now);
  const kept = ctx.state.git_config;
  ctx.state.git_config = kept ? { settings: kept.settings, files: now.files } : now;
}

/**
 * The program-running keys the agent added, changed or removed in the repository's config (empty
 * when none). Bytes are compared first (no git process); only changed bytes are listed through git.
 * A refused change is undone at once — the files get back the bytes the run accepted, the agent's
 * versions are kept in the run's directory — so no later git call of Ralph's runs it.
 */
export async function checkGitConfig(ctx: RunContext, iteration: number): Promise<string[]> {
  const mark = ctx.state.git_config;
  if (!mark) return [];
  const keep = join(dirname(ctx.recordsFile), `git-config-refused-${iteration}`);
  return holdGitConfig(ctx.options.workspace, mark, ctx.paths.protectedStore, keep);
}

/**
 * The program keys changed since `mark` in `root`'s config; when there are any, the mark's bytes are
 * put back (copies from `store`) and what was there is kept in `keep`. Other changes are accepted
 * into the mark.
 */
export async function holdGitConfig(
  root: string,
  mark: ConfigMark,
  store: string,
  keep: string,
): Promise<string[]> {
  const since = await configChangesSince(root, mark);
  if (!since) return [];
  if (since.changed.length === 0) {
    // Nothing that runs a program (a branch's upstream, a setting of its own): the new bytes are accepted.
    keepConfigCopies(store, since.now);
    mark.files = since.now.files;
    return [];
  }
  putBack(mark, store, keep);
  return since.changed;
}

/** Puts the accepted bytes back in every changed config file; the versions found go to `keep`. */
function putBack(mark: ConfigMark, store: string, keep: string): void {
  let n = 0;
  for (const [file, hash] of Object.entries(mark.files)) {
    const current = existsSync(file) ? (hashFile(file) ?? '') : '';
    if (current === hash) continue;
    if (current) writeFileAtomicSync(join(keep, `${++n}-${basename(file)}`), readFileSync(file, 'utf8'));
    if (!hash) {
      removeFile(file);
      continue;
    }
    const copy = join(store, hash);
    if (!existsSync(copy) || hashFile(copy) !== hash)
      throw new RalphError(
        'git_state',
        `${file} changed a setting that makes git run a program, and the run's copy of it (${copy}) is gone, so it cannot be put back; the run stopped before any git call — restore ${file} yourself, then \`ralph run --resume\``,
      );
    writeFileAtomicSync(file, readFileSync(copy, 'utf8'));
  }
}

/** What the record and the next prompt say about it. */
export function gitConfigFeedback(keys: readonly string[]): string {
  return `Iteration not accepted: it changed the repository's git config: ${keys.join(', ')} (a program git would run in Ralph's own calls, where they push, or which tree they read and commit). The config was put back as the run started; leave .git/config alone and do the work in the files. Nothing of that iteration was committed.`;
}

/** Refusing it max_consecutive_failures times in a row ends the run. */
export function gitConfigStop(ctx: RunContext, keys: readonly string[]): Stop | undefined {
  if (keys.length === 0 || ctx.state.consecutive_failures < ctx.limits.maxConsecutiveFailures)
    return undefined;
  return stop(
    'gate_tampered',
    `${ctx.state.consecutive_failures} iterations in a row changed the repository's git config (${keys.join(', ')}); each change was put back — review the agent's instructions, then \`ralph run --resume\``,
  );
}

/**
 * Before a run continues an earlier one (and before any git call that could run a program): the
 * repository's program-running config must be what that run started with, as its state.json says.
 * A difference is an agent's change no Ralph was there to refuse (a kill -9 mid-iteration).
 */
export async function refuseChangedGitConfig(
  workspace: string,
  previous: LoopState | undefined,
  /** What to do when it was the user's own change. */
  ifYours = 'start a new run that trusts it: `ralph run --fresh`',
): Promise<void> {
  const mark = previous?.git_config;
  if (!mark || previous.status === 'completed') return;
  const changed = (await configChangesSince(workspace, mark))?.changed ?? [];
  if (changed.length === 0) return;
  throw new RalphError(
    'git_state',
    `the repository's git config changed since run ${previous.run_id} started: ${changed.join(', ')} (settings that make git run a program, choose where it pushes, or which tree it reads); Ralph runs no git command with it. If you did not set it, remove it (\`git config --unset-all <key>\`, or edit .git/config); if you did, ${ifYours}`,
  );
}
