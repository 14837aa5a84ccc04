import { join } from 'node:path';
import { createDemoWorkspace } from '../demo/demo-workspace.ts';
import type { CliIO } from './io.ts';
import { runCommand } from './run-command.ts';

/** `ralph demo`: a real multi-iteration loop with the fake backend in a temp workspace. */
export async function demoCommand(
  flags: { dir?: string | undefined; quiet?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  const root = createDemoWorkspace(flags.dir);
  io.out(`ralph demo: workspace ${root}\n\n`);
  const code = await runCommand({ verbose: !flags.quiet, quiet: flags.quiet }, [], { ...io, cwd: root });
  io.out(
    [
      '',
      `Artifacts in ${root}:`,
      '  PLAN.md, greet.js, test.js, README.md   what the agent built',
      '  .ralph/state.json                       durable loop state',
      `  ${join('.ralph', 'logs')}/                            the run log (header, agent output, footer per iteration)`,
      '  .ralph/runs/<run-id>/iterations.jsonl   one record per iteration',
      `Try: cd ${root} && node ${process.argv[1] ?? 'ralph'} status`,
      '',
    ].join('\n'),
  );
  return code;
}
