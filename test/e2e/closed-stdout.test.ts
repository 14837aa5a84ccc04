import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, readRecords, readState, startRalph } from '../helpers/workspace.ts';

// The arguments of ralph run (--dry-run, --help) are tested in process: test/cli/run-arguments.test.ts.
describe('a closed stdout (ralph run | head)', () => {
  it('drops console output quietly and lets the loop finish every iteration, logged in full', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 4 }),
      'PROMPT.md': 'go\n',
      'fake-agent.yml': 'turns:\n  - do:\n      - print: "line {{iteration}}"\n      - sleep: 0.2\n',
    });
    const ralph = startRalph(['run', '-v'], dir);
    // Like `head -1`: read the first chunk, then close the pipe while the loop is mid-run.
    await new Promise<void>((resolve) => ralph.child.stdout?.once('data', () => resolve()));
    ralph.child.stdout?.destroy();
    const r = await ralph.done;
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
    expect(readState(dir)).toMatchObject({ iterations: 4, stop_reason: 'max_iterations' });
    expect(readRecords(dir)).toHaveLength(4);
  });
});
