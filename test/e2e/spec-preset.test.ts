import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFile, specWorkspace } from '../helpers/spec-workspace.ts';
import { makeWorkspace, ROOT, runRalph } from '../helpers/workspace.ts';

// A stand-in agent: records its argv (NUL-separated), a few env vars and its cwd, exits 7.
const RECORDING_AGENT = [
  '#!/bin/sh',
  'for a in "$@"; do printf "%s\\0" "$a"; done > "$RALPH_WORKSPACE_ROOT/argv.bin"',
  'printf "%s\\n" "${CLAUDECODE:-unset}" "$(pwd)" > "$RALPH_WORKSPACE_ROOT/env.txt"',
  'exit 7',
  '',
].join('\n');

// What ralph init --preset spec writes and plan --dry-run run in process: test/cli/spec-preset.test.ts.
describe('./ralph wrapper and ralph plan', () => {
  const withRalphOnPath = { PATH: `${join(ROOT, 'bin')}${delimiter}${process.env.PATH ?? ''}` };

  it('./ralph plan NAME hands the plan prompt + spec line to one interactive session, exit code passes through', async () => {
    const dir = await specWorkspace();
    writeFileSync(join(dir, 'agent.sh'), RECORDING_AGENT, { mode: 0o755 });
    mkdirSync(join(dir, 'sub'));
    // From a subdirectory: the wrapper runs Ralph in the project root.
    const r = await runFile(
      '../ralph',
      ['plan', 'feature-x', '-b', 'custom', '--set', `cli.command=${join(dir, 'agent.sh')}`],
      join(dir, 'sub'),
      { ...withRalphOnPath, CLAUDECODE: '1' },
    );
    expect(r.stderr).toContain('write or refine specs/feature-x.md');
    expect(r.code).toBe(7);

    const argv = readFileSync(join(dir, 'argv.bin'), 'utf8').split('\0').slice(0, -1);
    expect(argv).toHaveLength(1);
    const prompt = argv[0]!;
    expect(
      prompt.startsWith(readFileSync(join(dir, '.ralph/prompts/PROMPT_plan.md'), 'utf8').trimEnd()),
    ).toBe(true);
    expect(prompt.trimEnd().split('\n').at(-1)).toBe('Spec to write or refine: specs/feature-x.md');
    const [claudecode, cwd] = readFileSync(join(dir, 'env.txt'), 'utf8').split('\n');
    expect(claudecode).toBe('unset');
    expect(cwd).toBe(dir);

    expect(existsSync(join(dir, 'IMPLEMENTATION_PLAN.md'))).toBe(false);
    expect(existsSync(join(dir, 'PROGRESS.md'))).toBe(false);
    expect(existsSync(join(dir, '.ralph', 'state.json'))).toBe(false);
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
  });

  it('explains how to get the plan prompt when it is missing, and reports a missing agent', async () => {
    const dir = makeWorkspace({});
    const r = await runRalph(['plan', 'x', '-b', 'custom', '--set', 'cli.command=agent'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.ralph/prompts/PROMPT_plan.md');
    expect(r.stderr).toContain('ralph init --preset spec');

    const spec = await specWorkspace();
    const missing = await runRalph(
      ['plan', 'x', '-b', 'custom', '--set', 'cli.command=no-such-agent-xyz'],
      spec,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('agent not found: no-such-agent-xyz');
  });

  it('./ralph 20 is the build loop with 20 iterations', async () => {
    const dir = await specWorkspace();
    const r = await runFile(
      './ralph',
      ['20', '--dry-run', '-b', 'custom', '--set', 'cli.command=agent'],
      dir,
      withRalphOnPath,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('max_iterations: 20');
    expect(r.stdout).toContain('# first prompt (.ralph/prompts/PROMPT_build.md');
  });

  it('./ralph names the install command when no ralph CLI can be found, and never runs itself', async () => {
    const dir = await specWorkspace();
    const bin = join(dir, 'tools');
    mkdirSync(bin);
    for (const tool of ['dirname', 'basename']) {
      const path = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(path, join(bin, tool));
    }
    // The project root on PATH makes `command -v ralph` find the wrapper itself.
    const r = await runFile('./ralph', ['plan', 'x'], dir, { PATH: `${bin}${delimiter}${dir}` });
    expect(r.code).toBe(127);
    expect(r.stderr).toContain('ralph CLI was not found');
    expect(r.stderr).toContain('npm install -g ralph');
  });
});
