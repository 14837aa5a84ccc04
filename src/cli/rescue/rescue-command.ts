import { refuseChangedGitConfig } from '../../engine/gates/git-config-gate.ts';
import { ExitCode, RalphError } from '../../errors.ts';
import { isGitRepo } from '../../git/repo-state.ts';
import {
  applyRescue,
  listRescues,
  RESCUE_PREFIX,
  type RescueEntry,
  showRescue,
} from '../../git/rescue-refs.ts';
import { type LoopState, readLoopState } from '../../state/loop-state.ts';
import { RUNTIME_PATHS, ralphPaths } from '../../state/paths.ts';
import type { CliIO } from '../io.ts';

async function rescues(io: CliIO): Promise<RescueEntry[]> {
  if (!(await isGitRepo(io.cwd)))
    throw new RalphError(
      'not_a_git_repo',
      `${io.cwd} is not a git repository: rescued changes live in git refs`,
    );
  return listRescues(io.cwd);
}

/** The rescue `which` names (see the command's help); throws a RalphError listing what there is. */
async function pick(which: string | undefined, io: CliIO): Promise<RescueEntry> {
  const all = await rescues(io);
  if (all.length === 0)
    throw new RalphError(
      'rescue_not_found',
      'no rescued changes here (a rollback keeps them under refs/ralph/rescue/)',
    );
  if (which === undefined) return all[0]!;
  const lastRun = readLoopState(ralphPaths(io.cwd).state)?.run_id;
  const matches = all.filter((e) =>
    which.startsWith(`${RESCUE_PREFIX}/`)
      ? e.ref === which
      : /^\d+$/.test(which)
        ? e.iteration === Number(which) && (lastRun === undefined || e.run === lastRun)
        : `${e.run}/${e.iteration}` === which || e.ref.endsWith(`/${which}`),
  );
  if (matches.length === 1) return matches[0]!;
  const known = all.map((e) => `${e.run}/${e.iteration}`).join(', ');
  throw new RalphError(
    'rescue_not_found',
    `${matches.length === 0 ? 'no rescued change' : 'more than one rescued change'} matches '${which}': name one of ${known}`,
  );
}

/** `ralph rescue list [--json]` */
export async function rescueListCommand(flags: { json?: boolean | undefined }, io: CliIO): Promise<number> {
  const all = await rescues(io);
  if (flags.json) {
    io.out(`${JSON.stringify(all, null, 2)}\n`);
    return ExitCode.ok;
  }
  if (all.length === 0) io.out('no rescued changes (gates.on_failure: rollback keeps them here)\n');
  for (const e of all)
    io.out(
      `${e.run}/${e.iteration}  ${e.date}  back to ${e.base.slice(0, 12)}\n  ${e.subject}\n  ${e.ref}\n`,
    );
  return ExitCode.ok;
}

/** `ralph rescue show [which]` */
export async function rescueShowCommand(which: string | undefined, io: CliIO): Promise<number> {
  const entry = await pick(which, io);
  io.out(`${entry.ref}\n${await showRescue(io.cwd, entry)}`);
  return ExitCode.ok;
}

/** The workspace's last run, if its state can be read. */
function lastRunState(cwd: string): LoopState | undefined {
  try {
    return readLoopState(ralphPaths(cwd).state);
  } catch {
    return undefined;
  }
}

/** `ralph rescue apply [which]` */
export async function rescueApplyCommand(which: string | undefined, io: CliIO): Promise<number> {
  const entry = await pick(which, io);
  // Its cherry-pick runs merge drivers and filters: not ones an agent added after the run's last check.
  await refuseChangedGitConfig(
    io.cwd,
    lastRunState(io.cwd),
    `apply it with plain git: \`git cherry-pick --no-commit ${entry.commit}\``,
  );
  await applyRescue(io.cwd, entry, { exclude: RUNTIME_PATHS });
  io.out(
    `applied ${entry.ref} to the work tree (staged, not committed): review with \`git diff --cached\`, then commit it\n`,
  );
  return ExitCode.ok;
}
