import { realpathSync } from 'node:fs';
import { createDemoWorkspace, DEMO_OVERRIDES } from '../../demo/demo-workspace.ts';
import { RALPH_BIN } from '../../paths-package.ts';
import { findExecutable } from '../../process/find-executable.ts';
import type { CliIO } from '../io.ts';
import { runCommand } from './run-command.ts';

/** `ralph demo`: seed 000's board workflow, run for real with the scripted agent in a temp workspace. */
export async function demoCommand(
  flags: { dir?: string | undefined; force?: boolean | undefined; quiet?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  const root = createDemoWorkspace(flags.dir, flags.force === true);
  io.out(
    `ralph demo: the hat board (work/ → proposed/ → done/) with the scripted agent\nworkspace ${root}\n\n`,
  );
  const code = await runCommand(
    { verbose: !flags.quiet, quiet: flags.quiet, promptFile: 'PROMPT.md', set: [...DEMO_OVERRIDES] },
    [],
    { ...io, cwd: root },
  );
  if (code !== 0) {
    // The run's own hint (`ralph run --resume`) would use ralph.yml alone, whose backend is claude:
    // the demo goes on only with its overrides.
    const sets = DEMO_OVERRIDES.map((o) => `--set ${o}`).join(' ');
    io.out(
      `\nThe demo did not finish. To go on with it:\n  cd ${root} && ${ralphCommand(io)} run --resume -P PROMPT.md ${sets}\n`,
    );
    return code;
  }
  io.out(
    [
      '',
      `Artifacts in ${root}:`,
      '  done/item-{1,2,3}.txt                    the results (work/ and proposed/ are empty)',
      '  poll-log.txt                            the board scanner log',
      '  .ralph/events-*.jsonl                   every event (`ralph events` there)',
      '  .ralph/agent/memories.md                memories written across items',
      '  .ralph/state.json, .ralph/logs/, .ralph/runs/<run-id>/iterations.jsonl',
      `Try: cd ${root} && ${ralphCommand(io)} events && ${ralphCommand(io)} hats graph`,
      '',
    ].join('\n'),
  );
  return code;
}

/**
 * How to call this same ralph again from a shell: `ralph` when that name on PATH is this CLI (an
 * installed package), else node with this CLI's path (a checkout, or another ralph on PATH).
 */
function ralphCommand(io: CliIO): string {
  const onPath = findExecutable('ralph', io.env.PATH, io.cwd);
  return onPath.found && sameFile(onPath.path, RALPH_BIN) ? 'ralph' : `node ${RALPH_BIN}`;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
