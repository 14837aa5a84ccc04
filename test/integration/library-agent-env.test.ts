import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoopIn } from '../helpers/library-loop.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// The agents' environment starts from a copy of the caller's made once per run (copying
// process.env every iteration was one of the costlier steps of a short iteration); each agent
// still gets the variables of its own iteration, and the nesting guards stay removed.

/** The caller's environment, counting how often it is enumerated (a copy or a spread enumerates it). */
function countingEnv(extra: Record<string, string>): { env: NodeJS.ProcessEnv; copies: () => number } {
  let copies = 0;
  const env = new Proxy<NodeJS.ProcessEnv>(
    { ...process.env, ...extra },
    {
      ownKeys: (target) => {
        copies++;
        return Reflect.ownKeys(target);
      },
    },
  );
  return { env, copies: () => copies };
}

async function run(iterations: number): Promise<{ dir: string; copies: number }> {
  const dir = makeWorkspace({
    'ralph.yml': [
      'event_loop:',
      `  max_iterations: ${iterations}`,
      '  cooldown_delay_seconds: 0',
      '  max_idle_iterations: 0',
      'cli:',
      '  backend: custom',
      '  command: sh',
      '  args: ["-c", "env > env-$RALPH_ITERATION.txt"]',
      '',
    ].join('\n'),
  });
  const { env, copies } = countingEnv({ CALLER_VAR: 'from-the-caller', CLAUDECODE: '1' });
  const result = await runLoopIn(dir, {
    env,
  });
  expect(result.iterations).toBe(iterations);
  return { dir, copies: copies() };
}

describe('runLoop: the agents environment', () => {
  it('is copied from the caller once per run, not once per iteration; each agent has its own iteration', async () => {
    const one = await run(1);
    const four = await run(4);
    expect(four.copies).toBe(one.copies);

    const envOf = (n: number) =>
      new Map(
        readFileSync(join(four.dir, `env-${n}.txt`), 'utf8')
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
    const first = envOf(1);
    const last = envOf(4);
    expect(first.get('RALPH_ITERATION')).toBe('1');
    expect(last.get('RALPH_ITERATION')).toBe('4');
    expect(last.get('RALPH_ITERATION_MARK')).toMatch(/:4$/);
    expect(last.get('CALLER_VAR')).toBe('from-the-caller');
    expect(last.has('CLAUDECODE')).toBe(false);
    expect(first.get('PATH')).toBe(last.get('PATH'));
  });
});
