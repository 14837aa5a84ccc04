import { describe, expect, it } from 'vitest';
import { agentEnvBase, buildBaseAgentEnv } from '../../../src/agent/agent-env.ts';

describe("the agent's environment", () => {
  it('drops an empty directory variable, which an agent CLI would read as the workspace', () => {
    const base = agentEnvBase({
      CLAUDE_CONFIG_DIR: '',
      CODEX_HOME: '',
      XDG_CONFIG_HOME: '',
      GEMINI_DIR: '/g',
      EDITOR: '',
      RALPH_FAULT_WRITE: '3',
      HOME: '/home/u',
    });
    expect(base).toEqual({ GEMINI_DIR: '/g', EDITOR: '', HOME: '/home/u' });
    const env = buildBaseAgentEnv({
      base,
      ralphBin: '/r/ralph',
      ralphBinDir: '/r',
      workspace: '/w',
      extra: [],
    });
    expect(env.CLAUDE_CONFIG_DIR).toBeUndefined();
    expect(env.PATH).toBe('/r');
  });
});
