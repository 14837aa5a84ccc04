import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initGitRepo } from '../helpers/git-workspace.ts';
import { makeWorkspace, runRalph } from '../helpers/workspace.ts';

// Issue 36: `ralph --debug <cmd>` and RALPH_DEBUG=1 trace Ralph's own steps on stderr — config
// read, the agent's backend and argv, each child process, locks, state files — and never a secret.

const ENV_SECRET = 'acme-Zq8vR2pL9xW4tY7u'; // a secret-named variable's value
const CONFIG_SECRET = 'svc-Mk3nB6vC1xZ8aQ5w'; // known only to the run's config (cli.env)
const TOKEN = `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7'}`; // a key shape

function workspace(): string {
  const dir = makeWorkspace({
    'ralph.yml': [
      'event_loop:',
      '  prompt: "no-op"',
      '  cooldown_delay_seconds: 0',
      'cli:',
      '  backend: custom',
      '  command: /bin/sh',
      `  args: ["-c", "exit 0", "${ENV_SECRET}", "${CONFIG_SECRET}", "${TOKEN}"]`,
      '  prompt_mode: stdin',
      '  env:',
      `    OTHER_SERVICE_CREDENTIAL: ${CONFIG_SECRET}`,
      'gates:',
      `  validate: "test -n ${CONFIG_SECRET}"`,
    ].join('\n'),
  });
  initGitRepo(dir);
  return dir;
}

const ENV = { ACME_CLOUD_API_KEY: ENV_SECRET, GITHUB_TOKEN: TOKEN };

describe('ralph --debug', () => {
  it('traces config, agent, processes, locks and writes to stderr with every secret redacted', async () => {
    const dir = workspace();
    const r = await runRalph(['--debug', 'run', '-q', '--max-iterations', '1'], dir, ENV);
    expect(r.code, r.stderr).toBe(2);
    const trace = r.stderr.split('\n').filter((l) => l.startsWith('ralph[debug] '));
    const has = (re: RegExp) =>
      expect(
        trace.some((l) => re.test(l)),
        `${re} in\n${trace.join('\n')}`,
      ).toBe(true);
    has(/^ralph\[debug\] config: read .*ralph\.yml$/);
    has(/^ralph\[debug\] cache: config miss for .*ralph\.yml$/);
    has(/^ralph\[debug\] agent: backend custom in .*: \/bin\/sh -c 'exit 0' /);
    has(/^ralph\[debug\] exec: git -C .* rev-parse .*→ exit 0 in \d+ ms$/);
    has(/^ralph\[debug\] exec: \/bin\/sh -c 'exit 0' .* \(cwd .*\) → exit 0 in \d+ ms$/);
    has(/^ralph\[debug\] exec: sh -c 'test -n \[redacted\]' .*→ exit 0/); // the validate gate
    has(/^ralph\[debug\] lock: acquired .*\.ralph\/loop\.lock$/);
    has(/^ralph\[debug\] write: .*\.ralph\/state\.json$/);
    for (const secret of [ENV_SECRET, CONFIG_SECRET, TOKEN]) expect(r.stderr).not.toContain(secret);
    // Nothing of the trace on stdout, where a script reads results.
    expect(r.stdout).not.toContain('ralph[debug]');
  });

  it("stays out of the agent's environment: its own ralph calls do not trace into what the model reads", async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'event_loop:',
        '  prompt: "no-op"',
        'cli:',
        '  backend: custom',
        '  command: /bin/sh',
        '  args: ["-c", "echo \\"debug=${RALPH_DEBUG:-unset}\\" > seen.txt"]',
        '  prompt_mode: stdin',
      ].join('\n'),
    });
    const r = await runRalph(['run', '-q', '--max-iterations', '1'], dir, { RALPH_DEBUG: '1' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('ralph[debug] agent: backend custom');
    expect(readFileSync(join(dir, 'seen.txt'), 'utf8')).toBe('debug=unset\n');
  });

  it('RALPH_DEBUG=1 turns it on for any command; without either, no trace', async () => {
    const dir = workspace();
    const traced = await runRalph(['config', 'show'], dir, { ...ENV, RALPH_DEBUG: '1' });
    expect(traced.code, traced.stderr).toBe(0);
    expect(traced.stderr).toMatch(/^ralph\[debug\] config: read .*ralph\.yml$/m);
    expect(traced.stderr).not.toContain(ENV_SECRET);
    const plain = await runRalph(['run', '-q', '--max-iterations', '1'], dir, ENV);
    expect(plain.code).toBe(2);
    expect(plain.stderr).not.toContain('ralph[debug]');
    const off = await runRalph(['status'], dir, { ...ENV, RALPH_DEBUG: '0' });
    expect(off.stderr).not.toContain('ralph[debug]');
  });
});
