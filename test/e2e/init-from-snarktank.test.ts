import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// A snarktank/ralph project in its own layout: prompt.md, prd.json with two stories, progress.txt.
const story = (id: string, priority: number) => ({
  id,
  title: `Story ${id}`,
  description: `As a user I want ${id}.`,
  acceptanceCriteria: ['Typecheck passes'],
  priority,
  passes: false,
  notes: '',
});
const PRD = `${JSON.stringify({ project: 'Todo', branchName: 'ralph/todo', description: 'Todos', userStories: [story('US-001', 1), story('US-002', 2)] }, null, 2)}\n`;

/**
 * The agent as snarktank's prompt.md asks: flip the first story that does not pass, append to
 * progress.txt, and when none is left, end the last line with the promise tag. `always` prints the
 * tag every time, to show that an open story refuses it.
 */
const agent = (always: boolean) => `#!/bin/sh
sed -i '0,/"passes": false/s//"passes": true/' prd.json
echo "## $(date) - one story" >> progress.txt
if ${always ? 'true' : '! grep -q \'"passes": false\' prd.json'}; then
  echo "Implemented the story."
  echo "All stories pass. <promise>COMPLETE</promise>"
else
  echo "Implemented the story; more remain."
fi
`;

const project = (always: boolean) => {
  const dir = makeWorkspace({
    'prompt.md':
      '# Agent instructions\nPick the highest priority story where passes is false, implement it, set passes: true.\nWhen every story passes, reply with <promise>COMPLETE</promise>\n',
    'prd.json': PRD,
    'progress.txt': '# Ralph Progress Log\n---\n',
    'agent.sh': agent(always),
  });
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return dir;
};

const passes = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'prd.json'), 'utf8')).userStories.map(
    (s: { passes: boolean }) => s.passes,
  );

describe('a snarktank/ralph project after ralph init --from snarktank', () => {
  it('runs to completion in two iterations on <promise>COMPLETE</promise>, the stories shown as tasks', async () => {
    const dir = project(false);
    const init = await runRalph(['init', '--from', 'snarktank', '--backend', 'custom'], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('maps:');
    const r = await runRalph(['run', '-q', '--set', 'cli.command=./agent.sh', '--max-iterations', '5'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const records = readRecords(dir);
    expect(records).toHaveLength(2);
    // Each iteration's record says it moved the tasks on: a story of prd.json now passes.
    expect(records.map((x) => x.progress.tasks)).toEqual([true, true]);
    expect(records.map((x) => x.verdict)).toEqual(['success', 'complete']);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(passes(dir)).toEqual([true, true]);
    const list = await runRalph(['tools', 'task', 'list'], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/US-001\s+closed\s+1\s+Story US-001/);
    expect(list.stdout).toMatch(/US-002\s+closed\s+2\s+Story US-002/);
  });

  it('the promise tag while a story still fails is refused: the run goes on until every story passes', async () => {
    const dir = project(true);
    expect((await runRalph(['init', '--from', 'snarktank', '--backend', 'custom'], dir)).code).toBe(0);
    const r = await runRalph(['run', '-q', '--set', 'cli.command=./agent.sh', '--max-iterations', '5'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readRecords(dir)).toHaveLength(2);
    expect(passes(dir)).toEqual([true, true]);
  });

  it('with completion.condition: all_tasks the last story passing completes the run without the promise', async () => {
    const dir = project(false);
    writeFileSync(join(dir, 'agent.sh'), agent(false).replace(/<promise>COMPLETE<\/promise>/, 'done'));
    expect((await runRalph(['init', '--from', 'snarktank', '--backend', 'custom'], dir)).code).toBe(0);
    const r = await runRalph(
      [
        'run',
        '-q',
        '--set',
        'cli.command=./agent.sh',
        '--set',
        'completion.condition=all_tasks',
        '--max-iterations',
        '5',
      ],
      dir,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['success', 'complete']);
  });
});
