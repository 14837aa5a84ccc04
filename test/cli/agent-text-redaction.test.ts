import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

const SECRET = 'acme-Lp4sW9zQ2mX7vB1n';
const SHAPE = `AKIA${'ABCDEFGH12345678'}`;

/** Every file under `dir`, as one text. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
    .map((p) => readFileSync(p, 'utf8'))
    .join('\n');
}

describe("the agent's ralph commands write its text redacted", () => {
  it('emit (topic and JSON payload), tools task add, ensure and fail, tools memory add', async () => {
    const dir = makeWorkspace();
    const env = {
      ACME_API_KEY: SECRET,
      RALPH_WORKSPACE_ROOT: dir,
      RALPH_EVENTS_FILE: join(dir, 'events.jsonl'),
    };
    const ralph = async (...args: string[]) => {
      const r = await runCliInMemory(args, { cwd: dir, env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return r.stdout.trim();
    };
    await ralph('emit', `deploy.${SHAPE}`, JSON.stringify({ key: SECRET, list: [`x ${SHAPE}`] }), '--json');
    await ralph('tools', 'task', 'add', `rotate ${SECRET}`, '-d', `old ${SHAPE}`);
    const ensured = await ralph('tools', 'task', 'ensure', 'k', `ensure ${SHAPE}`);
    await ralph('tools', 'task', 'fail', ensured, '--reason', `leaked ${SECRET}`);
    await ralph('tools', 'memory', 'add', `the key is ${SECRET}`, '--tags', `x,${SHAPE}`);

    const event = JSON.parse(readFileSync(env.RALPH_EVENTS_FILE, 'utf8'));
    expect(event).toMatchObject({
      topic: 'deploy.[redacted]',
      payload: { key: '[redacted]', list: ['x [redacted]'] },
    });
    const tasks = await ralph('tools', 'task', 'list', '--format', 'json');
    expect(JSON.parse(tasks)).toMatchObject([
      { title: 'rotate [redacted]', description: 'old [redacted]' },
      { title: 'ensure [redacted]', reason: 'leaked [redacted]' },
    ]);
    expect(await ralph('tools', 'memory', 'list')).toContain('the key is [redacted]');
    const written = `${allText(join(dir, '.ralph'))}${readFileSync(env.RALPH_EVENTS_FILE, 'utf8')}`;
    expect(written).not.toContain(SECRET);
    expect(written).not.toContain(SHAPE);
  });
});
