import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace } from './workspace.ts';

export const RALPH_YML = [
  'cli:',
  '  backend: fake',
  '  fake_script: fake-agent.yml',
  'git:',
  '  commit: true',
  'health:',
  '  specs_dir: specs',
  '',
].join('\n');

/** A bin directory holding only git (which git.commit needs), no agent CLI. */
export function gitOnlyBin(): string {
  const bin = makeWorkspace();
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
  return bin;
}

/** No agent CLI on PATH: the doctor's table does not depend on (or run) what this machine has installed. */
export const noAgentClis = (): NodeJS.ProcessEnv => ({ PATH: gitOnlyBin(), RALPH_AGENT: '' });

/** A git repository with specs/ and a fake-backend ralph.yml: every health check applies. */
export function gitWorkspace(yml = RALPH_YML): string {
  const dir = makeWorkspace({
    'ralph.yml': yml,
    'fake-agent.yml': 'steps: []\n',
    'PROMPT.md': 'x\n',
    'specs/auth.md': '# Auth\n',
    'specs/api/users.md': '# Users\n',
  });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  // A clean tree: git.commit implies require_clean, which the doctor checks like `ralph run` does.
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'init');
  return dir;
}

/** The key the doctor must never print. */
export const SECRET = 'sk-ant-api03-DOCTOR-E2E-SECRET-0123456789abcdef';
export const isRoot = process.getuid?.() === 0;

/**
 * A PATH with fake `claude` and `codex` only, a HOME with a codex login, and the credentials a
 * developer's shell may hold blanked out, so the backends table is the same on every machine.
 */
export function agentEnv(): NodeJS.ProcessEnv {
  const bin = makeWorkspace();
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
  for (const [name, version] of [
    ['claude', '2.1.329 (Claude Code)'],
    ['codex', 'codex-cli 0.169.0'],
  ]) {
    writeFileSync(join(bin, name!), `#!/bin/sh\necho "${version}"\n`);
    chmodSync(join(bin, name!), 0o755);
  }
  const home = makeWorkspace();
  mkdirSync(join(home, '.codex'));
  writeFileSync(join(home, '.codex', 'auth.json'), `{"OPENAI_API_KEY":"${SECRET}"}`);
  const blank = [
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
    'CLAUDE_CONFIG_DIR',
    'CODEX_HOME',
    'OPENAI_API_KEY',
    'CODEX_API_KEY',
    'RALPH_AGENT',
    'XDG_DATA_HOME',
    'XDG_CONFIG_HOME',
  ];
  return {
    PATH: bin,
    HOME: home,
    ANTHROPIC_API_KEY: SECRET,
    ...Object.fromEntries(blank.map((v) => [v, ''])),
  };
}
