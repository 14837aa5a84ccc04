import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentEnv, gitWorkspace, RALPH_YML, SECRET } from '../helpers/doctor-workspace.ts';
import { makeWorkspace, pidAlive, runRalph } from '../helpers/workspace.ts';

// The doctor's checks without a probe run in process: test/cli/doctor.test.ts.
/** A git workspace whose fake agent plays `steps` (YAML actions) for the probe. */
function probeWorkspace(steps: string[]): string {
  const dir = gitWorkspace();
  writeFileSync(
    join(dir, 'fake-agent.yml'),
    `turns:\n  - do:\n${steps.map((s) => `      - ${s}\n`).join('')}`,
  );
  const id = ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid'];
  execFileSync('git', [...id, 'commit', '-qam', 'the probe agent'], { cwd: dir });
  return dir;
}

describe('ralph doctor --probe', () => {
  it('runs the configured backend once and prints ✓ with its answer (exit 0)', async () => {
    const dir = probeWorkspace(['print: OK']);
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ probe +fake answered: OK \(no token usage reported, (\d+ms|\d+s)\)$/m); // a slow machine: "1s"
    expect(r.stdout).toContain('ready to run');
  });

  it('shows the tokens and cost of a stream-json answer, in text and JSON', async () => {
    const dir = probeWorkspace([
      'assistant: OK',
      '{ result: { text: OK, input_tokens: 1200, output_tokens: 3, cost_usd: 0.0042 } }',
    ]);
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^✓ probe +fake answered: OK \(tokens 1,200 in \/ 3 out, \$0\.0042, (\d+ms|\d+s)\)$/m,
    ); // a slow machine: "1s"
    const json = await runRalph(['doctor', '--probe', '--json'], dir, agentEnv());
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).probe).toMatchObject({
      backend: 'fake',
      command: process.execPath,
      ok: true,
      kind: 'success',
      message: 'OK',
      reset_at: null,
      tokens: { input: 1200, output: 3, total: 1203 },
      cost_usd: 0.0042,
    });
  });

  it('sweeps what the probed agent left running outside its process group', async () => {
    // The probe's PATH holds only fake CLIs: the tools go by their full paths.
    const which = (tool: string) =>
      execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    const [setsid, sleep] = [which('setsid'), which('sleep')];
    const dir = probeWorkspace([
      `run: "${setsid} /bin/sh -c 'echo $$ > escaped.pid; exec ${sleep} 300' >/dev/null 2>&1 &"`,
      `run: "while [ ! -s escaped.pid ]; do ${sleep} 0.05; done"`,
      'print: OK',
    ]);
    const env = agentEnv();
    // The scripted agent's `run` needs sh.
    const r = await runRalph(['doctor', '--probe'], dir, {
      ...env,
      PATH: `${env.PATH}:${dirname(which('sh'))}`,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const pid = Number(readFileSync(join(dir, 'escaped.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(pidAlive(pid)).toBe(false);
  });

  it('prints ✗ with the reason and exits 1 when the agent fails', async () => {
    const dir = probeWorkspace(['stderr: "agent crashed: boom"', 'exit: 1']);
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✗ probe +fake: agent error: agent crashed: boom$/m);
    expect(r.stdout).toContain('the probe failed: ralph run would fail its first iteration');
    const silent = probeWorkspace(['exit: 1']);
    const r2 = await runRalph(['doctor', '--probe', '--json'], silent, agentEnv());
    expect(r2.code).toBe(1);
    expect(JSON.parse(r2.stdout).probe).toMatchObject({ ok: false, kind: 'agent_error' });
  });

  it('classifies auth errors and rate limits (with the reset time) the way the loop does', async () => {
    const auth = probeWorkspace([
      '{ result: { text: "Invalid API key · Please run /login", is_error: true } }',
    ]);
    const a = await runRalph(['doctor', '--probe'], auth, agentEnv());
    expect(a.code).toBe(1);
    expect(a.stdout).toMatch(/^✗ probe +fake: auth error: Invalid API key · Please run \/login$/m);
    const limited = probeWorkspace(['{ rate_limit: { resets_in_seconds: 3600 } }']);
    const before = Date.now();
    const l = await runRalph(['doctor', '--probe', '--json'], limited, agentEnv());
    expect(l.code).toBe(1);
    const probe = JSON.parse(l.stdout).probe;
    expect(probe).toMatchObject({ ok: false, kind: 'rate_limit' });
    const reset = Date.parse(probe.reset_at);
    expect(reset).toBeGreaterThan(before + 3500_000);
    expect(reset).toBeLessThan(Date.now() + 3700_000);
    const text = await runRalph(['doctor', '--probe'], limited, agentEnv());
    expect(text.stdout).toMatch(/^✗ probe +fake: rate limit: .*\(resets \d{4}-\d\d-\d\dT[\d:.]+Z\)$/m);
  });

  it('redacts secrets the agent echoes, from the environment and from cli.env', async () => {
    const dir = probeWorkspace(['print: "OK {{env.ANTHROPIC_API_KEY}} {{env.MY_SERVICE_TOKEN}}"']);
    const yml = RALPH_YML.replace(
      'fake_script: fake-agent.yml\n',
      'fake_script: fake-agent.yml\n  env:\n    MY_SERVICE_TOKEN: tok-from-cli-env-0123456789\n',
    );
    writeFileSync(join(dir, 'ralph.yml'), yml);
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e.invalid', 'commit', '-qam', 'env'], {
      cwd: dir,
    });
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('fake answered: OK [redacted] [redacted]');
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).not.toContain('tok-from-cli-env-0123456789');
    const json = await runRalph(['doctor', '--probe', '--json'], dir, agentEnv());
    expect(json.stdout).not.toContain(SECRET);
    expect(json.stdout).not.toContain('tok-from-cli-env-0123456789');
    expect(JSON.parse(json.stdout).probe.message).toBe('OK [redacted] [redacted]');
  });

  it('runs the agent under the caps a loop iteration has: the idle timeout, max_cost_usd, max_tokens', async () => {
    const capped = (steps: string[], eventLoop: string) => {
      const dir = probeWorkspace(steps);
      writeFileSync(
        join(dir, 'ralph.yml'),
        `${RALPH_YML}event_loop:\n${eventLoop}  kill_grace_seconds: 0.5\n`,
      );
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e.invalid', 'commit', '-qam', 'caps'], {
        cwd: dir,
      });
      return dir;
    };
    const silent = capped(['sleep: 600'], '  idle_timeout_seconds: 2\n');
    const idle = await runRalph(['doctor', '--probe'], silent, agentEnv());
    expect(idle.code).toBe(1);
    expect(idle.stdout).toMatch(
      /^✗ probe +fake: killed: no output for 2 s \(event_loop\.idle_timeout_seconds\)$/m,
    );
    const costly = capped(
      ['{ result: { text: thinking, cost_usd: 2.5, input_tokens: 10, output_tokens: 10 } }', 'hang: true'],
      '  max_cost_usd: 1\n',
    );
    const cost = await runRalph(['doctor', '--probe', '--json'], costly, agentEnv());
    expect(cost.code).toBe(1);
    expect(JSON.parse(cost.stdout).probe).toMatchObject({
      ok: false,
      kind: 'killed',
      message: 'the answer cost more than event_loop.max_cost_usd ($1)',
      cost_usd: 2.5,
    });
    const wordy = capped(
      ['{ assistant: reading, usage: { input_tokens: 4000, output_tokens: 500 } }', 'hang: true'],
      '  max_tokens: 1000\n',
    );
    const tokens = await runRalph(['doctor', '--probe'], wordy, agentEnv());
    expect(tokens.code).toBe(1);
    expect(tokens.stdout).toMatch(
      /^✗ probe +fake: killed: the answer used more than event_loop\.max_tokens \(1000\)$/m,
    );
  });

  it('fails with what to do when the backend cannot run at all', async () => {
    const noCommand = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n' });
    const r = await runRalph(['doctor', '--probe'], noCommand, agentEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^✗ probe +custom: cannot run: cli\.backend is "custom" but cli\.command is not set/m,
    );
    const missing = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n  command: no-such-agent-cli\n' });
    const m = await runRalph(['doctor', '--probe'], missing, agentEnv());
    expect(m.code).toBe(1);
    expect(m.stdout).toMatch(/^✗ probe +custom: cannot run: could not start no-such-agent-cli: .*ENOENT/m);
  });
});
