import type { Command } from '@commander-js/extra-typings';
import type { CliIO, SetCode } from '../io.ts';
import { COUNT, configOption, jsonOption, numberOption, POSITIVE, presetOption } from '../options.ts';

// Definitions only: the fleet's modules (BullMQ, ioredis) load when a fleet command runs. They are
// optional peer dependencies, so every fleet command first loads them: without them it says what
// to install (exit 1) before it looks for Redis.

const REDIS_HELP = 'Redis URL (default: RALPH_REDIS_URL, then fleet.redis in the config)';

/** `ralph fleet …`: loops across machines on BullMQ + Redis (DESIGN.md §5 "Fleet"). */
export function registerFleetCommands(program: Command, io: CliIO, setCode: SetCode): void {
  const fleet = program
    .command('fleet')
    .description('run loops on a fleet of workers (BullMQ on Redis); see docs/operations/fleet.md')
    .hook('preAction', async () => {
      const { loadFleetEngine } = await import('../../fleet/open-fleet.ts');
      await loadFleetEngine();
    });
  const work = () => import('./fleet-command.ts');
  const view = () => import('./fleet-view-commands.ts');
  fleet
    .command('worker')
    .description('a long-running worker: takes runs from the fleet and runs their loops')
    .addOption(numberOption('--concurrency <n>', 'runs at once in this worker', COUNT).default(1))
    .option('--redis <url>', REDIS_HELP)
    .option('--workdir <dir>', 'where run workspaces are cloned (default: $XDG_STATE_HOME/ralph/fleet)')
    .option('--id <name>', 'this worker’s name in `ralph fleet status` (default: host-pid)')
    .addOption(
      numberOption(
        '--lock-ms <ms>',
        'job lock lifetime: a dead worker’s run resumes elsewhere after ~1.5× this',
        { integer: true, min: 500 },
      ).default(2000),
    )
    .addOption(
      numberOption(
        '--global-concurrency <n>',
        'runs at once across the fleet (default: fleet.global_concurrency)',
        COUNT,
      ),
    )
    .addOption(
      numberOption('--fleet-max-cost <usd>', 'fleet-wide cost cap (default: fleet.max_cost_usd)', POSITIVE),
    )
    .action(async (opts) => setCode(await (await work()).workerCommand(opts, io)));
  fleet
    .command('submit')
    .description('queue one loop run (the run id is printed; the run works on ralph/fleet/<run-id>)')
    .option('--repo <url-or-path>', 'repository every worker can reach (default: this repository)')
    .option('--branch <name>', 'branch to start from (default: the current branch, or main)')
    .addOption(presetOption('run with this preset'))
    .addOption(configOption('config file inside the repository (default: its ralph.yml)'))
    .addOption(numberOption('--max-cost <usd>', 'per-run cost limit (event_loop.max_cost_usd)', POSITIVE))
    .option('--name <name>', 'a label shown by `ralph fleet status`')
    .option('--redis <url>', REDIS_HELP)
    .action(async (opts) => setCode(await (await work()).submitCommand(opts, io)));
  fleet
    .command('status')
    .description('every fleet run: worker, iteration, cost, state, stop reason')
    .addOption(jsonOption('one JSON array'))
    .option('--redis <url>', REDIS_HELP)
    .action(async (opts) => setCode(await (await view()).fleetStatusCommand(opts, io)));
  fleet
    .command('logs')
    .description("a fleet run's log (or events), from any machine")
    .argument('<run>', 'run id or a unique prefix')
    .option('-f, --follow', 'keep printing until the run ends')
    .option('--events', 'the events file instead of the log')
    .option('--redis <url>', REDIS_HELP)
    .action(async (run, opts) => setCode(await (await view()).fleetLogsCommand(run, opts, io)));
  fleet
    .command('cancel')
    .description('stop a fleet run now (its agent is killed; it is never retried)')
    .argument('<run>', 'run id or a unique prefix')
    .option('--redis <url>', REDIS_HELP)
    .action(async (run, opts) => setCode(await (await view()).fleetCancelCommand(run, opts, io)));
  fleet
    .command('drain')
    .description('workers hand their runs over at the next iteration boundary and exit')
    .option('--worker <name>', 'only this worker')
    .option('--redis <url>', REDIS_HELP)
    .action(async (opts) => setCode(await (await view()).fleetDrainCommand(opts, io)));
}
