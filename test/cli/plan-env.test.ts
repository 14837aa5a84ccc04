import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEnv } from '../../src/backends/agents/claude.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../../src/paths-package.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// `ralph plan` starts its agent with the loop's agent environment (docs/concepts/agent-environment.md),
// only without a run's variables: here a stand-in `claude` on PATH records what it was given.

const RECORDING_CLAUDE = '#!/bin/sh\nenv > "$RALPH_WORKSPACE_ROOT/env.txt"\nexit 0\n';

function recordedEnv(dir: string): Map<string, string> {
  const lines = readFileSync(join(dir, 'env.txt'), 'utf8').split('\n');
  return new Map(
    lines
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('ralph plan: the agent environment', () => {
  it('drops nesting guards and RALPH_FAULT_*, then adds cli.env and the backend’s variables, ralph first on PATH', async () => {
    const dir = makeWorkspace({
      '.ralph/prompts/PROMPT_plan.md': 'Write a spec.\n',
      // cli.env comes after the removal, as in the loop: what the user sets explicitly is kept.
      'ralph.yml': 'cli:\n  env:\n    PLAN_VAR: from-config\n    CLAUDECODE: from-config\n',
    });
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), RECORDING_CLAUDE);
    chmodSync(join(bin, 'claude'), 0o755);

    const r = await runCliInMemory(['plan', 'feature-x', '-b', 'claude'], {
      cwd: dir,
      env: {
        PATH: `${bin}${delimiter}${RALPH_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
        CLAUDECODE: '1',
        CLAUDE_CODE_ENTRYPOINT: 'cli',
        RALPH_FAULT_KILL_BEFORE_WRITE: 'state.json',
        RALPH_FAULT_TRACE_WRITES: '1',
        // Any switch of that family, a future one too.
        RALPH_FAULT_SOMETHING_NEW: '1',
        KEPT_FROM_USER: 'yes',
      },
    });
    expect(r.stderr).toContain('ralph plan: starting claude');
    expect(r.code).toBe(0);

    const env = recordedEnv(dir);
    expect(env.get('KEPT_FROM_USER')).toBe('yes');
    expect(env.get('PLAN_VAR')).toBe('from-config');
    expect(env.get('CLAUDECODE')).toBe('from-config');
    expect(env.has('CLAUDE_CODE_ENTRYPOINT')).toBe(false);
    expect(env.has('RALPH_FAULT_KILL_BEFORE_WRITE')).toBe(false);
    expect(env.has('RALPH_FAULT_TRACE_WRITES')).toBe(false);
    expect(env.has('RALPH_FAULT_SOMETHING_NEW')).toBe(false);
    // Claude Code's own additions, as the loop gives them (IS_SANDBOX=1 when running as root).
    expect(env.get('IS_SANDBOX')).toBe(claudeEnv().IS_SANDBOX);
    expect(env.get('RALPH_BIN')).toBe(RALPH_BIN);
    expect(env.get('RALPH_WORKSPACE_ROOT')).toBe(dir);
    const path = env.get('PATH')?.split(delimiter) ?? [];
    expect(path[0]).toBe(RALPH_BIN_DIR);
    expect(path.filter((p) => p === RALPH_BIN_DIR)).toHaveLength(1);
    // No run: no events file, iteration, run id or process mark.
    for (const name of ['RALPH_EVENTS_FILE', 'RALPH_ITERATION', 'RALPH_RUN_ID', 'RALPH_ITERATION_MARK'])
      expect(env.has(name), name).toBe(false);
  });
});
