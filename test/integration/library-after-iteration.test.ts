import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoopIn } from '../helpers/library-loop.ts';
import { elapse } from '../helpers/wait.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

// The two runLoop options the fleet is built on: a run id of the caller's, and a hook awaited
// between iterations (checkpoint, push) that can end the loop.

describe('runLoop: runId and afterIteration', () => {
  it('awaits the hook with the saved state before the next iteration, and a stop it returns ends the loop', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 10 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - append: { path: seen.txt, content: "{{iteration}}\\n" }',
        '      - result: { text: "ok", cost_usd: 0.5 }',
      ].join('\n'),
    });
    const calls: { iterations: number; cost: number; onDisk: number; agentRuns: string }[] = [];
    const result = await runLoopIn(dir, {
      runId: 'fleet-run-1',
      afterIteration: async ({ state }) => {
        await elapse(100, 'slow on purpose: the next iteration must wait for it');
        calls.push({
          iterations: state.iterations,
          cost: state.cost_usd,
          onDisk: JSON.parse(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8')).iterations,
          agentRuns: readFileSync(join(dir, 'seen.txt'), 'utf8'),
        });
        return state.iterations === 3 ? { reason: 'max_cost', message: 'the fleet cap' } : undefined;
      },
    });
    expect(calls).toEqual([
      { iterations: 1, cost: 0.5, onDisk: 1, agentRuns: '1\n' },
      { iterations: 2, cost: 1, onDisk: 2, agentRuns: '1\n2\n' },
      { iterations: 3, cost: 1.5, onDisk: 3, agentRuns: '1\n2\n3\n' },
    ]);
    expect(result).toMatchObject({ runId: 'fleet-run-1', stopReason: 'max_cost', exitCode: 2 });
    expect(result.message).toBe('the fleet cap');
    expect(existsSync(join(dir, '.ralph', 'runs', 'fleet-run-1', 'iterations.jsonl'))).toBe(true);
  });

  it('a stop the iteration decided wins over the hook’s', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 5 }),
      'fake-agent.yml': ['turns:', '  - do: [{ result: { text: "done\\nLOOP_COMPLETE" } }]'].join('\n'),
    });
    let called = 0;
    const result = await runLoopIn(dir, {
      afterIteration: async () => {
        called++;
        return { reason: 'interrupted', message: 'handed over' };
      },
    });
    expect(called).toBe(1);
    expect(result.stopReason).toBe('completed');
  });
});
