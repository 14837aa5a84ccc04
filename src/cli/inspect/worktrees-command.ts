import { ExitCode } from '../../errors.ts';
import { controlledWorkspace } from '../../human/control.ts';
import { cleanWorktrees, listWorktrees, repoRoot } from '../../parallel/worktrees.ts';
import type { CliIO } from '../io.ts';

/** The io of a command addressed to a worktree by name (`ralph status --worktree NAME`). */
export async function worktreeIo(name: string, io: CliIO): Promise<CliIO> {
  return {
    ...io,
    cwd: controlledWorkspace({
      workspace: await repoRoot(io.cwd, { needs: `--worktree ${name}` }),
      worktree: name,
    }),
  };
}

/** `ralph worktrees list [--json]` */
export async function worktreesListCommand(
  flags: { json?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  const list = await listWorktrees(await repoRoot(io.cwd, { needs: 'ralph worktrees list' }));
  if (flags.json) {
    io.out(`${JSON.stringify(list, null, 2)}\n`);
    return ExitCode.ok;
  }
  if (list.length === 0) io.out('no worktrees (ralph run --worktree NAME makes one)\n');
  for (const w of list) {
    io.out(
      `${w.name}  ${w.branch}  ${w.ahead} ahead, ${w.behind} behind${w.dirty ? ', uncommitted changes' : ''}  loop: ${w.loop}\n  ${w.path}\n`,
    );
    const t = w.task;
    if (t)
      io.out(
        `  task: ${t.title} — ${t.state}${t.reason ? ` (${t.reason})` : ''}${t.last_gate ? `; last gate: ${t.last_gate}` : ''}\n`,
      );
  }
  return ExitCode.ok;
}

/** `ralph worktrees clean`: removes only what holds no work that is not on the current branch. */
export async function worktreesCleanCommand(io: CliIO): Promise<number> {
  const { removed, kept } = await cleanWorktrees(await repoRoot(io.cwd, { needs: 'ralph worktrees clean' }));
  for (const name of removed) io.out(`removed ${name} (its branch was merged)\n`);
  for (const k of kept) io.out(`kept ${k.name}: ${k.why}\n`);
  if (removed.length === 0 && kept.length === 0) io.out('no worktrees\n');
  return ExitCode.ok;
}
