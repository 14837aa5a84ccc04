import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

/** What bash offers after typing `line` and pressing Tab, with the script `ralph completion bash` printed. */
function bashComplete(script: string, line: string): string[] {
  const dir = makeWorkspace();
  const file = join(dir, 'ralph.bash');
  writeFileSync(file, script);
  const words = line.split(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ralph; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'x',
      file,
    ],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter(Boolean).sort();
}

/** What the zsh script hands `_describe` for `line` (or `(files)`), with zsh's completion functions stubbed. */
function zshComplete(script: string, line: string): string[] {
  const dir = makeWorkspace();
  const file = join(dir, 'ralph.zsh');
  writeFileSync(file, script);
  const words = line.split(' ');
  const stubs =
    'compdef(){ :; }; _describe(){ shift 2; local n=$2; print -l -- ${(P)n}; }; _files(){ print "(files)"; }';
  const out = execFileSync(
    'zsh',
    [
      '-f',
      '-c',
      `${stubs}; source "$1"; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _ralph`,
      'x',
      file,
    ],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter(Boolean);
}

describe('ralph completion', () => {
  it('bash: completes commands, subcommands and each command’s own flags from the CLI itself', async () => {
    const r = await runCliInMemory(['completion', 'bash'], { cwd: ROOT });
    expect(r.code).toBe(0);
    const help = await runCliInMemory(['--help'], { cwd: ROOT });
    // The Commands: section only (the Examples: under it hold `ralph …` lines too).
    const listed = help.stdout.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
    const commands = [...listed.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(10);
    const top = bashComplete(r.stdout, 'ralph ');
    for (const c of commands) expect(top).toContain(c);
    expect(bashComplete(r.stdout, 'ralph config ')).toEqual([
      '--help',
      'explain',
      'schema',
      'show',
      'validate',
    ]);
    expect(bashComplete(r.stdout, 'ralph run --max-')).toEqual([
      '--max-cost',
      '--max-iterations',
      '--max-runtime',
    ]);
    expect(bashComplete(r.stdout, 'ralph -v tools task cl')).toEqual(['close']);
    expect(bashComplete(r.stdout, 'ralph logs --')).toEqual(['--follow', '--help']);
    expect(bashComplete(r.stdout, 'ralph runs ')).toEqual(['--help', '--json', 'prune']);
  });

  it('zsh completes natively with each command’s and flag’s description; fish lists every command and flag', async () => {
    const zsh = await runCliInMemory(['completion', 'zsh'], { cwd: ROOT });
    expect(zsh.stdout).toContain('compdef _ralph ralph');
    // What zsh's _describe is given after `ralph config ` + Tab, and after `ralph run --max-`.
    expect(zshComplete(zsh.stdout, 'ralph config ')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^validate:check the config/),
        expect.stringMatching(/^show:/),
      ]),
    );
    expect(zshComplete(zsh.stdout, 'ralph run --max-').filter((w) => w.startsWith('--max-i'))).toEqual([
      '--max-iterations:stop after N iterations (exit 2)',
    ]);
    expect(zshComplete(zsh.stdout, 'ralph tell ')).toEqual(['(files)']);
    const fish = await runCliInMemory(['completion', 'fish'], { cwd: ROOT });
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c ralph -f -n '__fish_use_subcommand' -a 'run'");
    expect(fish.stdout).toContain("-n '__fish_seen_subcommand_from run' -l max-iterations -r");
    expect(fish.stdout).toContain("-n '__fish_seen_subcommand_from logs' -l follow -s f");
  });

  it('offers no hidden command (issue 36: the internal parallel-worker was offered)', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await runCliInMemory(['completion', shell], { cwd: ROOT });
      expect(r.stdout, shell).not.toContain('parallel-worker');
    }
  });

  it('names the shells it supports', async () => {
    const r = await runCliInMemory(['completion', 'tcsh'], { cwd: ROOT });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bash, zsh and fish');
  });
});
