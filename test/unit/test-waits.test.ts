import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

/**
 * Files under test/ that may pause for a fixed time, and why. Everywhere else a test waits for the
 * event, file or state it expects (waitFor / waitForValue), or lets time pass through `elapse`
 * where its passing is the subject.
 */
const SLEEP_ALLOWED: Record<string, string> = {
  'test/helpers/wait.ts': 'the one poll and elapse',
  'test/support/telegram-server/server.ts':
    'the fake Bot API holds a long poll for its timeout, as Telegram does',
  'test/integration/idle-wait.test.ts': 'the sleep it hands the idle wait runs on vitest’s fake clock',
  'test/integration/parallel-milestone-order.test.ts':
    'setImmediate, not a sleep: it looks at the task list on every event-loop turn while a merge runs',
  'test/unit/architecture.test.ts': 'plants sleeps in src/-like fixtures to prove its own rules fail',
  'test/unit/test-waits.test.ts': 'plants sleeps to prove this rule fails',
};

/** Ways to pause for a fixed time. */
const FIXED_SLEEPS: [RegExp, string][] = [
  [/new Promise[^;]*\bsetTimeout\(/, 'a promise resolved by a timer'],
  [/from ['"](?:node:)?timers\/promises['"]/, 'node:timers/promises'],
  [/\b(?:execSync|execFileSync|spawnSync)\(\s*['"]sleep\b/, 'a shell sleep'],
];

/** `file: what` for each fixed sleep in the .ts files under `root`/test (fixtures are agents' scripts). */
function fixedSleeps(root: string): string[] {
  const files = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .map((name) => `test/${name.split('\\').join('/')}`)
    .filter((file) => file.endsWith('.ts') && !file.startsWith('test/fixtures/') && !(file in SLEEP_ALLOWED));
  return files.flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return FIXED_SLEEPS.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${file}: ${what}`);
  });
}

describe('tests wait for what they expect, never a fixed time', () => {
  it('no fixed sleep under test/ outside the allowed files (wait with waitFor, or elapse where time is the subject)', () => {
    expect(fixedSleeps(ROOT), 'use waitFor/waitForValue or elapse from test/helpers/wait.ts').toEqual([]);
  });

  it('finds a planted sleep of each kind, and none in an allowed file', () => {
    const root = makeWorkspace();
    const plant = (file: string, text: string) => {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    plant('test/e2e/a.test.ts', 'await new Promise((r) => setTimeout(r, 500));\n');
    plant('test/e2e/b.test.ts', "import { setTimeout as sleep } from 'node:timers/promises';\n");
    plant('test/integration/c.test.ts', "execSync('sleep 1');\n");
    plant('test/helpers/wait.ts', 'const pause = (ms) => new Promise((r) => setTimeout(r, ms));\n');
    plant('test/fixtures/agent.ts', 'await new Promise((r) => setTimeout(r, 30_000));\n');
    plant('test/e2e/d.test.ts', "await waitFor(() => existsSync('x'));\n");
    expect(fixedSleeps(root)).toEqual([
      'test/e2e/a.test.ts: a promise resolved by a timer',
      'test/e2e/b.test.ts: node:timers/promises',
      'test/integration/c.test.ts: a shell sleep',
    ]);
  });
});
