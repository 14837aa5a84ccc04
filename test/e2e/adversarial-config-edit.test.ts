import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, initGitRepo } from '../helpers/git-workspace.ts';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// The agent edits the config that holds its gates (ralph.yml, a -H hats file): the iteration is not
// accepted, and the `ralph run --resume` Ralph suggests does not reload the loosened config.

const CONFIG = [
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  'event_loop:',
  '  prompt: "make test.sh pass"',
  '  max_iterations: 2',
  'gates:',
  '  tests:',
  '    command: sh test.sh',
  '',
].join('\n');

/** An agent that drops the tests gate from ralph.yml and claims completion. */
const CHEAT = `#!/bin/sh\ncat >/dev/null\nprintf 'cli:\\n  backend: custom\\n  command: ./agent.sh\\nevent_loop:\\n  prompt: x\\n' > ralph.yml\necho LOOP_COMPLETE\n`;

function project(agent: string, files: Record<string, string> = {}): string {
  const dir = makeWorkspace({
    'ralph.yml': CONFIG,
    'agent.sh': agent,
    'test.sh': 'test -f REAL || exit 1\n',
    ...files,
  });
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return initGitRepo(dir);
}

describe('the agent edits the config that holds its gates', () => {
  it('dropping the tests gate from ralph.yml is gate_tampered, and --resume refuses the agent’s ralph.yml', async () => {
    const dir = project(CHEAT);
    const first = await runRalph(['run'], dir);
    expect(first.code).not.toBe(0);
    expect(readRecords(dir).map((r) => [r.verdict, r.tampered])).toEqual([
      ['gate_tampered', ['ralph.yml']],
      ['gate_tampered', ['ralph.yml']],
    ]);
    const resumed = await runRalph(['run', '--resume', '--max-iterations', '4'], dir);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('ralph.yml changed since run');
    expect(resumed.stderr).toContain('`git checkout -- ralph.yml`');
    expect(readRecords(dir)).toHaveLength(2);
    expect(readState(dir).status).not.toBe('completed');
  });

  it('the user’s own edit of ralph.yml between runs is taken on --resume, with a warning', async () => {
    const dir = project('#!/bin/sh\ncat >/dev/null\necho working\n');
    expect((await runRalph(['run'], dir)).code).toBe(2);
    writeFileSync(join(dir, 'ralph.yml'), CONFIG.replace('max_iterations: 2', 'max_iterations: 3'));
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('ralph.yml changed since this run started; the run goes on with it');
    expect(readRecords(dir).map((r) => r.verdict)).not.toContain('gate_tampered');
    expect(readRecords(dir)).toHaveLength(3);
  });

  it('a -H hats file in the workspace is protected like ralph.yml', async () => {
    const hats =
      'hats:\n  builder:\n    name: Builder\n    triggers: [build.start]\n    publishes: [build.done]\n';
    const agent = `#!/bin/sh\ncat >/dev/null\necho "# mine" >> hats.yml\necho LOOP_COMPLETE\n`;
    const dir = project(agent, { 'hats.yml': hats });
    const r = await runRalph(['run', '-H', 'hats.yml', '--max-iterations', '1'], dir);
    expect(r.code).not.toBe(0);
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'gate_tampered', tampered: ['hats.yml'] });
    expect(readFileSync(join(dir, 'hats.yml'), 'utf8')).toContain('# mine');
    expect(git(dir, 'status', '--porcelain')).toContain('hats.yml');
  });
});
