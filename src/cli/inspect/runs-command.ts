import { listRuns, type RunSummary } from '../../dashboard/run-data.ts';
import { ExitCode } from '../../errors.ts';
import { skippedNotice } from '../../state/io/jsonl.ts';
import { formatAge } from '../../state/io/time-format.ts';
import { damagedRegistryLines, pruneRegistry, registryFile } from '../../state/run-registry.ts';
import type { CliIO } from '../io.ts';

/** One run of `ralph runs --json` (documented in the README). */
function runJson(r: RunSummary) {
  return {
    workspace: r.workspace,
    run_id: r.runId,
    state: r.group,
    detail: r.detail,
    alive: r.alive,
    pid: r.entry.pid,
    started_at: r.entry.started_at,
    last_seen: r.updatedAt,
  };
}

/** The dashboard's group, with why a stopped run stopped. */
function stateWord(r: RunSummary): string {
  if (r.group !== 'stopped') return r.group;
  return r.state ? `stopped (${r.state.stop_reason ?? 'crashed'})` : 'stopped (no state.json)';
}

/** `ralph runs [--json]`: every run in the per-user registry, newest first. */
export function runsListCommand(flags: { json?: boolean | undefined }, io: CliIO, now = Date.now()): number {
  const runs = listRuns(io.env, now);
  const damaged = damagedRegistryLines(io.env);
  if (damaged.length > 0) io.err(`ralph: ${skippedNotice(registryFile(io.env), damaged)}\n`);
  if (flags.json) {
    io.out(`${JSON.stringify(runs.map(runJson), null, 2)}\n`);
    return ExitCode.ok;
  }
  if (runs.length === 0) {
    io.out(`no runs in ${registryFile(io.env)} (ralph run adds one)\n`);
    return ExitCode.ok;
  }
  const age = (at: string) => (Number.isNaN(Date.parse(at)) ? '?' : formatAge(now - Date.parse(at)));
  for (const r of runs)
    io.out(
      `${r.workspace}  ${r.runId}  ${stateWord(r)}  started ${age(r.entry.started_at)}  last seen ${age(r.updatedAt)}\n`,
    );
  const removed = runs.filter((r) => r.group === 'removed').length;
  if (removed > 0)
    io.out(
      `${removed} of these ${removed === 1 ? 'has its' : 'have their'} workspace gone: ralph runs prune forgets them\n`,
    );
  return ExitCode.ok;
}

/** `ralph runs prune`: forgets the runs whose workspace is gone, and says what it did. */
export function runsPruneCommand(io: CliIO): number {
  const result = pruneRegistry(io.env, undefined, (pid) =>
    io.err(
      `ralph: waiting for ${registryFile(io.env)}: ${pid === undefined ? 'another ralph' : `pid ${pid}`} is writing it\n`,
    ),
  );
  for (const e of result.pruned) io.out(`forgot ${e.workspace} (${e.run_id})\n`);
  const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
  io.out(
    `pruned ${runs(result.pruned.length)} whose workspace is gone; ${result.kept} kept` +
      (result.damaged > 0
        ? `; dropped ${result.damaged} damaged line${result.damaged === 1 ? '' : 's'}`
        : '') +
      '\n',
  );
  return ExitCode.ok;
}
