import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readState, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

// ralph init and presets run in process: test/cli/init-and-presets.test.ts.
describe('scratchpad lifecycle', () => {
  it('is cleared at the start of a fresh run, kept on --resume, and read fresh each iteration', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 3\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\n',
      '.ralph/agent/scratchpad.md': 'left over from last week\n',
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ echo_prompt: true }, { append: { path: .ralph/agent/scratchpad.md, content: "note from iteration 1\\n" } }]',
        '  - when: { iteration: 2, file_missing: go.flag }',
        '    do: [{ echo_prompt: true }, { run: "echo $PPID > agent.pid" }, { hang: true }]',
        '  - do: [{ echo_prompt: true }]',
      ].join('\n'),
    });
    const first = startRalph(['run', '-v'], dir);
    await waitFor(() => existsSync(join(dir, 'agent.pid')), 15_000, 'iteration 2');
    first.child.kill('SIGINT');
    const out1 = (await first.done).stdout;
    expect(out1).not.toContain('left over from last week');
    expect(out1).toContain('## Scratchpad (.ralph/agent/scratchpad.md)\nnote from iteration 1');
    writeFileSync(join(dir, 'go.flag'), '');
    const resumed = await runRalph(['run', '--resume', '-v'], dir);
    expect(resumed.stdout).toContain('note from iteration 1');
    expect(readState(dir).iterations).toBe(3);
  });
});
