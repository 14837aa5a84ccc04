import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT, readState, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

describe('ralph init and presets', () => {
  it('writes the board preset (seed 000 artifacts) and refuses to overwrite without --force', async () => {
    const dir = makeWorkspace({});
    const r = await runRalph(['init', '--preset', 'board'], dir);
    expect(r.code).toBe(0);
    // Seed 000's file as written, below the editor-schema line `ralph init` adds.
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(
      `# yaml-language-server: $schema=.ralph/ralph.schema.json\n${readFileSync(join(ROOT, 'presets', 'board', 'ralph.yml'), 'utf8')}`,
    );
    expect(readFileSync(join(dir, 'PROMPT.md'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', 'PROMPT.md'), 'utf8'),
    );
    expect(readFileSync(join(dir, 'work', 'item-2.txt'), 'utf8')).toContain('design patterns used in Go');
    expect(existsSync(join(dir, 'proposed'))).toBe(true);
    expect(existsSync(join(dir, 'done'))).toBe(true);
    expect((await runRalph(['hats', 'validate'], dir)).code).toBe(0);

    writeFileSync(join(dir, 'PROMPT.md'), 'mine\n');
    const again = await runRalph(['init', '--preset', 'board'], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
    expect(readFileSync(join(dir, 'PROMPT.md'), 'utf8')).toBe('mine\n');

    const forced = await runRalph(['init', '--preset', 'board', '--force', '--backend', 'fake'], dir);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toMatch(/backend: fake/);
    expect((await runRalph(['presets'], dir)).stdout).toMatch(/board\s+seed 000/);
    expect((await runRalph(['init', '--preset', 'nope'], dir)).stderr).toContain('unknown preset "nope"');
  });
});

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
