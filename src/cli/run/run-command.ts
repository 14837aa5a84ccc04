import type { Dashboard } from '../../dashboard/server.ts';
import type { StartMode } from '../../engine/context/run-options.ts';
import { refuseUnsupportedWithRepos } from '../../engine/readiness/repo-set.ts';
import { runLoop } from '../../engine/run/loop.ts';
import { earlierChecklistRun, refuseUnaskedChecklistRestart } from '../../engine/run/start-mode.ts';
import { ExitCode, RalphError, UsageError } from '../../errors.ts';
import { createConsoleReporter, type Verbosity } from '../../observe/reporters/console-reporter.ts';
import { ralphPaths } from '../../state/paths.ts';
import type { TuiHandle } from '../../tui/start-tui.ts';
import { type CliIO, inCi } from '../io.ts';
import { handleStopSignals } from '../signals.ts';
import { type RunFlags, resolveRunFlags } from './run-flags.ts';

export interface RunCommandFlags extends RunFlags {
  tui?: boolean | undefined;
  dashboard?: boolean | undefined;
  /** `--worktree [NAME]` (true: the default name). */
  worktree?: string | boolean | undefined;
  /** `--parallel N`: N workers in worktrees of their own and a merge queue. */
  parallel?: number | undefined;
  verbose?: boolean | undefined;
  quiet?: boolean | undefined;
  resume?: boolean | undefined;
  fresh?: boolean | undefined;
  dryRun?: boolean | undefined;
  /** `--json` with `--dry-run` or `--estimate`: one JSON object. */
  json?: boolean | undefined;
  /** `--estimate`: print the estimate (as `ralph estimate`) and start nothing. */
  estimate?: boolean | undefined;
}

function startMode(flags: RunCommandFlags): StartMode {
  if (flags.resume && flags.fresh) throw new UsageError('pass either --resume or --fresh, not both');
  return flags.resume ? 'resume' : flags.fresh ? 'fresh' : 'auto';
}

/** `ralph run`: resolve everything, then run the loop with a console reporter and Ctrl-C handling. */
export async function runCommand(
  flags: RunCommandFlags,
  extraArgs: string[],
  outerIo: CliIO,
): Promise<number> {
  if (flags.verbose && flags.quiet) throw new UsageError('pass either -v or -q, not both');
  // Before the worktree is made: the refusal must leave nothing behind.
  if (flags.parallel !== undefined && flags.worktree !== undefined)
    throw new UsageError('--parallel makes a worktree per task itself: pass either --parallel or --worktree');
  if (flags.estimate && flags.worktree !== undefined)
    throw new UsageError(
      '--estimate starts nothing, so it makes no worktree: run `ralph estimate` inside the worktree (.ralph/worktrees/NAME) instead',
    );
  // repos spans several repositories from their parent: it has no worktree (refused before one is made).
  if (flags.worktree !== undefined)
    refuseUnsupportedWithRepos(
      (await resolveRunFlags(outerIo.cwd, flags, outerIo.env, { cache: false })).config,
      {
        worktree: true,
      },
    );
  // --worktree: the loop runs in its own checkout on branch ralph/NAME, with its own .ralph/.
  const io = flags.worktree === undefined ? outerIo : await inWorktree(flags.worktree, outerIo);
  const mode = startMode(flags);
  if (flags.json && !flags.dryRun && !flags.estimate)
    throw new UsageError('--json goes with --dry-run or --estimate: a run prints its progress as text');
  if (flags.dryRun && !flags.estimate) {
    const { dryRun } = await import('./dry-run.ts');
    const resolved = await resolveRunFlags(io.cwd, flags, io.env, { cache: false });
    return dryRun(resolved, { mode, extraArgs, json: flags.json === true }, io);
  }
  // A run that starts its loop reads and refreshes the config cache; an estimate writes nothing.
  const resolved = await resolveRunFlags(io.cwd, flags, io.env, { cache: !flags.estimate });
  const { config, backend } = resolved;

  if (flags.estimate) {
    const { printEstimate } = await import('../inspect/estimate-command.ts');
    return printEstimate(resolved, flags.json === true, io);
  }

  const workers = flags.parallel ?? config.parallel;
  if (workers > 1 || flags.parallel !== undefined) {
    refuseUnsupportedWithRepos(config, { parallel: true });
    if (flags.worktree !== undefined)
      throw new UsageError(
        '--parallel makes a worktree per task itself: pass either --parallel or --worktree',
      );
    // The workers' loops start from a spec without them: the config's warnings are said here, once.
    for (const warning of resolved.configWarnings) io.err(`ralph: warning: ${warning}\n`);
    const { parallelCommand } = await import('./parallel-command.ts');
    return parallelCommand(resolved, workers, mode, extraArgs, io, {
      quiet: flags.quiet === true,
      tui: wantsTui(flags, io),
    });
  }
  const chosenMode = await checklistResumeChoice(mode, config.completion.checklist, io);
  const verbosity: Verbosity = flags.quiet ? 'quiet' : flags.verbose ? 'verbose' : 'normal';
  const reporter = createConsoleReporter({ out: io.out, err: io.err, verbosity, color: io.color });
  const controller = new AbortController();
  const forceController = new AbortController();
  let tui: TuiHandle | undefined;
  // Ralph's own lines go to the TUI's events pane while it owns the screen.
  const say = (text: string) => (tui ? tui.notice(text.trim(), 'warn') : io.err(text));
  const signals = handleStopSignals(io, {
    stop: (signal) => {
      const why = signal === 'SIGINT' ? '' : ` (${signal})`;
      say(
        `\nralph: stopping${why} — killing the agent, finishing the iteration's record and saving state (Ctrl-C again to force)\n`,
      );
      controller.abort('interrupted');
    },
    // Second signal: no grace, no waiting; state.json still says where to resume.
    force: () => {
      // The run kills what runs and saves its forced stop before abort() returns: the exit may follow.
      forceController.abort('forced');
      tui?.stop();
      io.err('ralph: forced stop — the run is saved as interrupted; continue with `ralph run --resume`\n');
    },
  });
  let dashboard: Dashboard | undefined;
  try {
    if (flags.dashboard)
      dashboard = await (await import('../dashboard/dashboard-command.ts')).openDashboard({}, io);
    if (wantsTui(flags, io) && io.terminal) {
      const { startTui } = await import('../../tui/start-tui.ts');
      const { tuiLimits } = await import('../../tui/tui-layout.ts');
      tui = await startTui({
        workspace: io.cwd,
        limits: tuiLimits(config.event_loop),
        stdout: io.terminal.stdout,
        stdin: io.terminal.stdin,
        onInterrupt: () => signals.trigger('SIGINT'),
      });
      // The URL went to the normal screen, which the TUI now covers: show it there too.
      if (dashboard) tui.notice(`dashboard: ${dashboard.url}`);
    }
    const result = await runLoop({
      workspace: io.cwd,
      config,
      prompt: resolved.prompt,
      backend,
      configFiles: resolved.configFiles,
      mode: chosenMode,
      configWarnings: resolved.configWarnings,
      extraArgs,
      signal: controller.signal,
      forceSignal: forceController.signal,
      env: io.env,
      reporters: [
        {
          onEvent: (event) => {
            if (!tui) return reporter.onEvent(event);
            tui.listener(event);
            // The end summary goes to the normal screen, after the TUI gave it back.
            if (event.type === 'loop.finished') {
              tui.stop();
              reporter.onEvent(event);
            }
          },
        },
      ],
    });
    return result.exitCode;
  } finally {
    tui?.stop();
    await dashboard?.close();
    signals.dispose();
  }
}

/** The TUI runs when stdin and stdout are a terminal, unless --no-tui, -q, TERM=dumb or CI. */
function wantsTui(flags: RunCommandFlags, io: CliIO): boolean {
  if (flags.tui === false || flags.quiet || !io.terminal) return false;
  return io.env.TERM !== 'dumb' && !inCi(io.env);
}

/**
 * Checklist workflow (seed 003): an earlier run for the same design document that did not complete
 * is resumed or restarted as the user says — asked in a terminal; otherwise the library refuses it
 * (`resume_or_fresh`), here before the dashboard or the TUI opens.
 */
async function checklistResumeChoice(
  mode: StartMode,
  checklist: string | undefined,
  io: CliIO,
): Promise<StartMode> {
  const paths = ralphPaths(io.cwd);
  if (mode !== 'auto' || !io.ask) {
    refuseUnaskedChecklistRestart(paths, checklist, mode);
    return mode;
  }
  const earlier = earlierChecklistRun(paths, checklist);
  if (!earlier) return mode;
  for (;;) {
    const answer = (
      await io.ask(
        `An earlier run on ${earlier.checklist} exists (${earlier.where}). Resume it? [Y]es / [n]o, start over / [q]uit: `,
      )
    )
      .trim()
      .toLowerCase();
    if (answer === '' || answer === 'y' || answer === 'yes') return 'resume';
    if (answer === 'n' || answer === 'no') return 'fresh';
    if (answer === 'q' || answer === 'quit')
      throw new RalphError('cancelled', 'nothing started', { exitCode: ExitCode.ok });
  }
}

/** Moves the run into its worktree (made on first use), after checking it has the run's files. */
async function inWorktree(name: string | boolean, io: CliIO): Promise<CliIO> {
  const { DEFAULT_WORKTREE, prepareWorktree } = await import('../../parallel/worktrees.ts');
  const wt = await prepareWorktree(io.cwd, typeof name === 'string' ? name : DEFAULT_WORKTREE);
  io.err(`ralph: ${wt.created ? 'created' : 'using'} worktree ${wt.path} (branch ${wt.branch})\n`);
  return { ...io, cwd: wt.workspace };
}
