import { describe, expect, it } from 'vitest';
import { adaptOrchestratorLayer } from '../../../../src/config/orchestrator/adapt-layer.ts';
import { mapCommandBackend } from '../../../../src/config/orchestrator/command-backends.ts';

describe("ralph-orchestrator's command backends", () => {
  it('maps the name to custom with its command, keeping a prompt_mode the config chose', () => {
    expect(mapCommandBackend({ backend: 'roo', prompt_mode: 'stdin', args: ['-m', 'x'] })?.cli).toEqual({
      backend: 'custom',
      command: 'roo',
      args: ['--print', '--ephemeral', '-m', 'x'],
      prompt_mode: 'stdin',
    });
  });

  it('leaves every other backend, a cli.command the user chose and names of Object.prototype alone', () => {
    for (const cli of [
      { backend: 'claude' },
      { backend: 'kiro', command: './kiro.sh' },
      { backend: 'toString' },
      { backend: '__proto__' },
      'kiro',
      null,
    ])
      expect(mapCommandBackend(cli)).toBeUndefined();
  });

  it('adapting a layer says what it mapped, on cli.backend, and does not change the input', () => {
    const input = { cli: { backend: 'forge' } };
    const adapted = adaptOrchestratorLayer(input);
    expect(adapted.raw.cli).toMatchObject({ backend: 'custom', command: 'forge', prompt_flag: '-p' });
    expect(adapted.notes).toEqual([
      { path: ['cli', 'backend'], message: expect.stringContaining('`forge -p PROMPT`') },
    ]);
    expect(input).toEqual({ cli: { backend: 'forge' } });
  });
});
