import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/index.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

describe('runLoop (library API)', () => {
  it('emits one typed event stream: started, iterations with agent events, finished', async () => {
    const dir = makeWorkspace({
      'ralph.yml': fakeConfig({ max_iterations: 5 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 2 }',
        '    do:',
        '      - assistant: "finishing"',
        '        usage: { input_tokens: 10, output_tokens: 5 }',
        '      - result: { text: "done\\nLOOP_COMPLETE", cost_usd: 0.01 }',
        '  - do: [{ print: "step {{iteration}}" }]',
      ].join('\n'),
    });
    const events: LoopEvent[] = [];
    const result = await runLoopIn(dir, {
      prompt: 'build it',
      reporters: [{ onEvent: (e) => events.push(e) }],
    });
    expect(result).toMatchObject({ exitCode: 0, stopReason: 'completed' });
    const kinds = events
      .filter((e) => e.type !== 'agent.output' && e.type !== 'agent.event')
      .map((e) => e.type);
    expect(kinds).toEqual([
      'loop.started',
      'notice', // wrote .ralph/.gitignore (a new workspace)
      'preflight',
      'iteration.started',
      'prompt.assembled',
      'agent.spawned',
      'iteration.finished',
      'iteration.started',
      'prompt.assembled',
      'agent.spawned',
      'completion.decided',
      'iteration.finished',
      'loop.finished',
    ]);
    const agentEvents = events.flatMap((e) => (e.type === 'agent.event' ? [e.event.type] : []));
    expect(agentEvents).toEqual(['text', 'text', 'usage', 'result']);
    const finished = events.at(-1);
    expect(finished).toMatchObject({ type: 'loop.finished', iterations: 2, costUsd: 0.01 });
    // The same stream fed the run log.
    expect(readFileSync(result.logFile, 'utf8')).toContain('step 1');
  });
});
