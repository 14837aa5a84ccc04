import { type Command, Option } from '@commander-js/extra-typings';
import { ExitCode } from '../../errors.ts';
import type { CliIO, SetCode } from '../io.ts';
import { formatOption, ids, json, jsonFormatOption } from './tool-options.ts';

/** The renderers, loaded when a command prints a table. */
const render = () => import('./tool-render.ts');

/**
 * `ralph tools task import --from github [--label L] [--milestone M]`: the open issues of the push
 * remote's repository become tasks (again: nothing added twice).
 */
export function registerTaskImport(task: Command, io: CliIO, setCode: SetCode): void {
  task
    .command('import')
    .description(
      'make each open issue of the push remote’s GitHub repository a task (pull requests excluded; importing again adds nothing)',
    )
    .addOption(
      new Option('--from <source>', 'where the tasks come from')
        .choices(['github'] as const)
        .makeOptionMandatory(),
    )
    .option('--label <label>', 'only open issues with this label')
    .option('--milestone <milestone>', 'only open issues in this milestone (its title or number)')
    .option(
      '-c, --config <file>',
      'the ralph.yml to read git.remote and forge.host from (default: discovered)',
    )
    .addOption(formatOption())
    .addOption(jsonFormatOption())
    .action(async (opts) => {
      // Loaded by the action: the config schema and the forge client stay off every other command's start.
      const { resolveRunConfig } = await import('../../engine/run/resolve-run.ts');
      const { describeImport, importGithubIssues } = await import(
        '../../engine/workflow-steps/issue-tasks.ts'
      );
      const workspace = io.env.RALPH_WORKSPACE_ROOT ?? io.cwd;
      const { config } = resolveRunConfig({ cwd: workspace, configPath: opts.config, env: io.env });
      const result = await importGithubIssues({
        workspace,
        config,
        env: io.env,
        filter: { label: opts.label, milestone: opts.milestone },
        loopId: io.env.RALPH_RUN_ID || undefined,
      });
      if (opts.format === 'json') io.out(json(result));
      else if (opts.format === 'quiet') io.out(ids(result.added));
      else {
        io.out(`${describeImport(result)}\n`);
        if (result.added.length > 0) io.out((await render()).renderTasks(result.added, 'table', ''));
      }
      setCode(ExitCode.ok);
    });
}
