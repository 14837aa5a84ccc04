import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSetOverride, RalphError, resolveRun } from '../../../../src/index.ts';
import { removeWhenDone } from '../../../helpers/workspace.ts';

function workspace(files: Record<string, string>): string {
  const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-resolve-')));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent' };

describe('resolveRun (library)', () => {
  it('finds ralph.yml and PROMPT.md, applies RALPH_AGENT, the overrides and the backend in that order', () => {
    const cwd = workspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\nevent_loop:\n  max_iterations: 7\n',
      'PROMPT.md': 'Do the work.\n',
      'f.yml': 'turns: []\n',
    });
    const byEnv = resolveRun({
      cwd,
      env: { ...env, RALPH_AGENT: 'fake' },
      overrides: [parseSetOverride('cli.fake_script=f.yml')],
    });
    expect(byEnv.config.cli.backend).toBe('fake');
    // The file's command was written for its own backend: the chosen one does not inherit it.
    expect(byEnv.config.cli.command).toBeUndefined();
    expect(byEnv.config.event_loop.max_iterations).toBe(7);
    expect(byEnv).toMatchObject({ prompt: 'Do the work.\n', promptSource: 'PROMPT.md' });
    expect(byEnv.configFile).toBe(join(cwd, 'ralph.yml'));
    expect(byEnv.backend.name).toBe('fake');

    const byOption = resolveRun({
      cwd,
      env: { ...env, RALPH_AGENT: 'claude' },
      overrides: [parseSetOverride('cli.backend=codex'), parseSetOverride('cli.fake_script=f.yml')],
      backend: 'fake',
      prompt: { text: 'other' },
    });
    expect(byOption.config.cli.backend).toBe('fake');
    expect(byOption).toMatchObject({ prompt: 'other', promptSource: '-p' });
  });

  it('throws RalphErrors that say what to fix', () => {
    const cwd = workspace({});
    const attempt = (options: Parameters<typeof resolveRun>[0]) => {
      try {
        resolveRun(options);
      } catch (error) {
        return error as RalphError;
      }
      throw new Error('resolveRun did not throw');
    };
    const missing = attempt({ cwd, env, configPath: 'nope.yml' });
    expect(missing).toBeInstanceOf(RalphError);
    expect(missing.code).toBe('config_unreadable');
    expect(missing.message).toContain('config file not found: nope.yml');
    expect(attempt({ cwd, env, backend: 'fake' }).message).toContain('no prompt: pass -p "text" or -P FILE');
    expect(attempt({ cwd, env, prompt: { file: 'gone.md' } }).code).toBe('prompt_unreadable');
  });
});
