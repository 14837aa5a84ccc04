import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// `--sandbox MODE` / `--no-sandbox` are overrides of the one config door: `run --dry-run` shows the
// mode the run uses (and the policy of `on`), agreeing with `config show`/`explain` given the same
// value, and `ralph doctor` says which modes work here.

const CUSTOM = 'cli:\n  backend: custom\n  command: ./agent.sh\n';

/** The `sandbox` value of the resolved config `ralph run --dry-run` prints. */
function dryRunSandbox(stdout: string): unknown {
  const config = stdout.slice(stdout.indexOf('\n') + 1, stdout.indexOf('# first prompt'));
  return (parse(config) as { sandbox: unknown }).sandbox;
}

describe('ralph run --sandbox / --no-sandbox', () => {
  it('--no-sandbox over sandbox: on runs unsandboxed, as config show with the same override says', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'go\n', 'ralph.yml': `${CUSTOM}sandbox: on\n` });
    const dry = await runCliInMemory(['run', '--dry-run', '--no-sandbox'], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dryRunSandbox(dry.stdout)).toBe('off');
    expect(dry.stdout).toMatch(/# sandbox\noff: the agent runs as you/);
    const show = await runCliInMemory(['config', 'show', '--set', 'sandbox=off'], { cwd: dir });
    expect((parse(show.stdout) as { sandbox: unknown }).sandbox).toBe('off');
  });

  it('--sandbox on over the object form keeps its allow lists and shows the policy rule by rule', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'go\n',
      'ralph.yml': `${CUSTOM}sandbox:\n  mode: off\n  allow_read: ["/opt/toolchain"]\n`,
    });
    const dry = await runCliInMemory(['run', '--dry-run', '--sandbox', 'on'], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dryRunSandbox(dry.stdout)).toEqual({
      mode: 'on',
      allow_read: ['/opt/toolchain'],
      allow_write: [],
      network: 'on',
    });
    const policy = dry.stdout.slice(dry.stdout.indexOf('# sandbox'));
    expect(policy).toContain(`read-write ${dir}  your work`);
    expect(policy).toContain(`read-only  ${dir}/.ralph  Ralph's state`);
    expect(policy).toContain(`read-only  ${dir}/ralph.yml  config`);
    expect(policy).toContain('read-only  /opt/toolchain  sandbox.allow_read');
    // A dry run writes nothing, not even the agent's files the policy names.
    expect(policy).toContain(`read-write ${dir}/.ralph/agent  agent file`);
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
    const explain = await runCliInMemory(['config', 'explain', 'sandbox', '--set', 'sandbox.mode=on'], {
      cwd: dir,
    });
    expect(explain.stdout).toMatch(/sandbox\.mode = "on"\s+← --set sandbox\.mode/);
    expect(explain.stdout).toMatch(/sandbox\.allow_read = \["\/opt\/toolchain"\]/);
  });

  it('refuses a mode that is none, naming the three', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'go\n', 'ralph.yml': CUSTOM });
    const r = await runCliInMemory(['run', '--dry-run', '--sandbox', 'strict'], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/off, on, native/);
  });

  it('native on a backend without a sandbox of its own is refused at start, naming it', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'go\n',
      'agent.sh': '#!/bin/sh\ntouch ran\n',
      'ralph.yml': `${CUSTOM}sandbox: native\n`,
    });
    const r = await runCliInMemory(['run', '--no-tui'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sandbox: native, but custom has no sandbox of its own/);
  });
});

describe('ralph doctor: sandbox', () => {
  it('says whether on works here and which backends have a native sandbox, in text and JSON', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'go\n', 'ralph.yml': `${CUSTOM}sandbox: on\n` });
    const json = await runCliInMemory(['doctor', '--json'], { cwd: dir });
    const report = JSON.parse(json.stdout) as { sandbox: Record<string, any> };
    expect(report.sandbox).toMatchObject({ mode: 'on', on: { works: true, tool: 'bwrap' } });
    expect(report.sandbox.without_native).toContain('custom');
    expect(Object.keys(report.sandbox.on).every((k) => /^[a-z]+(_[a-z]+)*$/.test(k))).toBe(true);
    const text = await runCliInMemory(['doctor'], { cwd: dir });
    expect(text.stdout).toMatch(
      /sandbox {2}\(this config: sandbox: on\)\n {2}✓ on {6}works here \(bwrap [\d.]+, \/\S*bwrap\)\n/,
    );
    expect(report.sandbox.on.path).toMatch(/bwrap$/);
    expect(text.stdout).toMatch(/✓ native {2}codex covers: .+; misses: /);
    expect(text.stdout).toMatch(/! native {2}no sandbox of their own: .*custom/);
  });
});
