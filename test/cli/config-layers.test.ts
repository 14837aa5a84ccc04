import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** A user config home with `config.yml` under ralph/. */
function userHome(yml: string): { env: NodeJS.ProcessEnv; file: string } {
  const home = makeWorkspace({ 'ralph/config.yml': yml });
  return { env: { XDG_CONFIG_HOME: home }, file: join(home, 'ralph', 'config.yml') };
}

describe('config layers: defaults → user config → project → preset → flags', () => {
  it('ralph config explain names the layer (and line) of every key', async () => {
    const user = userHome(
      'cli:\n  backend: fake\n  fake_script: agent.yml\nevent_loop:\n  max_iterations: 7\n  kill_grace_seconds: 2\n',
    );
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  max_iterations: 3\n' });
    const r = await runCliInMemory(['config', 'explain', '--set', 'event_loop.cooldown_delay_seconds=4'], {
      cwd: dir,
      env: user.env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `# layers, lowest first: default → user ${user.file} → project ralph.yml → flags`,
    );
    const line = (key: string) => r.stdout.split('\n').find((l) => l.startsWith(`${key} = `));
    expect(line('event_loop.max_iterations')).toMatch(/= 3 +← project ralph\.yml:2$/);
    expect(line('event_loop.kill_grace_seconds')).toMatch(new RegExp(`= 2 +← user ${user.file}:6$`));
    expect(line('cli.backend')).toMatch(new RegExp(`= "fake" +← user ${user.file}:2$`));
    expect(line('event_loop.cooldown_delay_seconds')).toMatch(
      /= 4 +← --set event_loop\.cooldown_delay_seconds=4$/,
    );
    expect(line('event_loop.idle_timeout_seconds')).toMatch(/= 600 +← default$/);
  });

  it('explain KEY narrows to the key; an unknown key gets a suggestion; --json is machine-readable', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  max_iterations: 3\n' });
    const one = await runCliInMemory(['config', 'explain', 'event_loop.max_iterations'], { cwd: dir });
    expect(one.stdout.trim().split('\n')).toHaveLength(2);
    const typo = await runCliInMemory(['config', 'explain', 'event_loop.max_iteration'], { cwd: dir });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('did you mean "event_loop.max_iterations"?');
    const json = JSON.parse(
      (await runCliInMemory(['config', 'explain', 'cli', '--json'], { cwd: dir })).stdout,
    );
    expect(json.keys.find((k: { path: string }) => k.path === 'cli.backend')).toEqual({
      path: 'cli.backend',
      value: 'auto',
      source: 'default',
    });
  });

  it('a problem in the user config is reported in that file, with its line', async () => {
    const user = userHome('event_loop:\n  max_iteratons: 7\n');
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  max_iterations: 3\n' });
    const r = await runCliInMemory(['config', 'validate', '--schema-only'], { cwd: dir, env: user.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${user.file}:2:3: event_loop.max_iteratons: unknown key "max_iteratons" — did you mean "max_iterations"?`,
    );
  });

  it('RALPH_AGENT reaches every command that reads the config; a file key it drops says why', async () => {
    const dir = makeWorkspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\n  fake_script: f.yml\n',
      'f.yml': 'turns: []\n',
    });
    const env = { RALPH_AGENT: 'fake' };
    const run = (args: string[]) => runCliInMemory(args, { cwd: dir, env });
    const validate = await run(['config', 'validate', '--schema-only']);
    expect(validate.stdout).toContain('ralph.yml: valid (backend fake)');
    expect((await run(['config', 'show'])).stdout).toMatch(/\n {2}backend: fake\n/);
    expect((await run(['config', 'show'])).stdout).not.toContain('agent.sh');
    const explain = (await run(['config', 'explain', 'cli'])).stdout;
    expect(explain).toMatch(/^cli\.backend = "fake" +← RALPH_AGENT=fake$/m);
    expect(explain).toMatch(
      /^cli\.command = null +← default \(project ralph\.yml:3 is for another backend than RALPH_AGENT=fake picks\)$/m,
    );
    expect((await run(['hats', 'validate'])).stdout).toBe('ralph.yml: 0 hats valid (solo mode)\n');
    // Without it, the file's backend and command, as before.
    const plain = await runCliInMemory(['config', 'explain', 'cli.command'], {
      cwd: dir,
      env: { RALPH_AGENT: '' },
    });
    expect(plain.stdout).toMatch(/^cli\.command = "\.\/agent\.sh" +← project ralph\.yml:3$/m);
  });
});
