import { RalphError, UsageError } from '../../errors.ts';
import { checkpointState } from '../../fleet/checkpoint-files.ts';
import type { FleetRunInfo, JobEngine } from '../../fleet/job-engine.ts';
import { openFleet } from '../../fleet/open-fleet.ts';
import { FINAL_STATES } from '../../fleet/run-record.ts';
import { stopText } from '../../observe/format.ts';
import { poll } from '../../state/io/jsonl.ts';
import type { CliIO } from '../io.ts';
import { untilInterrupted } from '../signals.ts';
import { fleetSettings } from './fleet-settings.ts';

type RedisFlag = { redis?: string | undefined };

/** Opens the fleet for one command and closes it after. */
async function withEngine<T>(
  flags: RedisFlag,
  io: CliIO,
  work: (engine: JobEngine) => Promise<T>,
): Promise<T> {
  const settings = fleetSettings(flags, io);
  const engine = await openFleet(settings.redisUrl);
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

/** A run by id or unique prefix. */
async function findRun(engine: JobEngine, ref: string): Promise<FleetRunInfo> {
  const exact = await engine.get(ref);
  if (exact) return exact;
  const matches = (await engine.list()).filter((r) => r.runId.startsWith(ref));
  if (matches.length === 1) return matches[0] as FleetRunInfo;
  if (matches.length === 0)
    throw new RalphError('fleet_run_unknown', `no fleet run ${ref}; \`ralph fleet status\` lists them`);
  throw new UsageError(`${ref} matches ${matches.length} runs: ${matches.map((r) => r.runId).join(', ')}`);
}

const pad = (text: string, n: number) => (text.length >= n ? `${text} ` : text.padEnd(n + 1));

/** `ralph fleet status [--json]`. */
export function fleetStatusCommand(
  flags: RedisFlag & { json?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  return withEngine(flags, io, async (engine) => {
    const runs = await engine.list();
    if (flags.json) {
      io.out(
        `${JSON.stringify(
          runs.map(({ spec, ...run }) => ({ ...run, repo: spec?.repo, branch: spec?.branch })),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (runs.length === 0) {
      io.out('no fleet runs yet; queue one with `ralph fleet submit`\n');
      return 0;
    }
    const head = ['RUN', 'NAME', 'STATE', 'WORKER', 'ITER', 'COST', 'STOP REASON'];
    const widths = [22, 12, 11, 18, 4, 9, 0];
    io.out(
      `${head
        .map((h, i) => pad(h, widths[i] ?? 0))
        .join('')
        .trimEnd()}\n`,
    );
    for (const r of runs) {
      const cells = [
        r.runId,
        r.name ?? '-',
        r.state,
        r.worker ?? '-',
        String(r.iteration),
        `$${r.costUsd.toFixed(4)}`,
        r.stopReason ? stopText(r.stopReason, r.message, ': ') : '-',
      ];
      io.out(
        `${cells
          .map((c, i) => pad(c, widths[i] ?? 0))
          .join('')
          .trimEnd()}\n`,
      );
      // Never silent: a file the checkpoint could not carry is missing where the run resumes.
      if (r.checkpointSkipped) io.out(`  checkpoint left out ${r.checkpointSkipped}\n`);
    }
    return 0;
  });
}

/** The log (or the events file) in a run's last checkpoint; '' when there is none yet. */
async function runText(engine: JobEngine, runId: string, events: boolean): Promise<string> {
  const files = await engine.files(runId);
  const state = checkpointState(files, runId);
  if (!state) return '';
  const path = events ? state.events_file : state.log_file;
  return files[path.split('\\').join('/')]?.toString('utf8') ?? '';
}

/** `ralph fleet logs RUN [-f] [--events]`: as of the last checkpoint (one per iteration). */
export function fleetLogsCommand(
  ref: string,
  flags: RedisFlag & { follow?: boolean | undefined; events?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  return withEngine(flags, io, async (engine) => {
    const run = await findRun(engine, ref);
    let shown = 0;
    const showNew = async () => {
      const text = await runText(engine, run.runId, flags.events === true);
      // A handed-over run's log can start a new file: show it from its start.
      if (text.length < shown) shown = 0;
      if (text.length > shown) io.out(text.slice(shown));
      shown = text.length;
    };
    await showNew();
    if (!flags.follow) {
      if (shown === 0) io.err(`ralph fleet: run ${run.runId} is ${run.state}; it has no checkpoint yet\n`);
      return 0;
    }
    // The checkpoint is a Redis value, not a file: polled, once a second, until the run ends.
    await untilInterrupted(async (signal) => {
      for await (const now of poll(() => engine.get(run.runId), { signal, intervalMs: 1000 })) {
        await showNew();
        if (!now || FINAL_STATES.includes(now.state)) break;
      }
    });
    return 0;
  });
}

/** `ralph fleet cancel RUN`. */
export function fleetCancelCommand(ref: string, flags: RedisFlag, io: CliIO): Promise<number> {
  return withEngine(flags, io, async (engine) => {
    const run = await findRun(engine, ref);
    const outcome = await engine.cancel(run.runId);
    const said = {
      removed: 'removed from the queue before it started',
      signalled: `its worker${run.worker ? ` (${run.worker})` : ''} kills the agent and stops the run now`,
      finished: `it had already ended (${run.state})`,
      unknown: 'no such run',
    }[outcome];
    io.out(`ralph fleet: cancel ${run.runId}: ${said}\n`);
    return outcome === 'unknown' ? 1 : 0;
  });
}

/** `ralph fleet drain [--worker NAME]`. */
export function fleetDrainCommand(
  flags: RedisFlag & { worker?: string | undefined },
  io: CliIO,
): Promise<number> {
  return withEngine(flags, io, async (engine) => {
    await engine.drain(flags.worker);
    io.out(
      `ralph fleet: asked ${flags.worker ? `worker ${flags.worker}` : 'every worker'} to hand its runs over at the next iteration boundary and exit\n`,
    );
    return 0;
  });
}
