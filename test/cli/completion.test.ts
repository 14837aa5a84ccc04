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

describe('ralph completion', () => {
  it('bash: completes commands, subcommands and each command’s own flags from the CLI itself', async () => {
    const r = await runCliInMemory(['completion', 'bash'], { cwd: ROOT });
    expect(r.code).toBe(0);
    const help = await runCliInMemory(['--help'], { cwd: ROOT });
    const commands = [...help.stdout.matchAll(/^ {2}([a-z]+)\b/gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'help');
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

  it('zsh reuses the bash function through bashcompinit; fish lists every command and flag', async () => {
    const zsh = await runCliInMemory(['completion', 'zsh'], { cwd: ROOT });
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _ralph ralph');
    const fish = await runCliInMemory(['completion', 'fish'], { cwd: ROOT });
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c ralph -f -n '__fish_use_subcommand' -a 'run'");
    expect(fish.stdout).toContain("-n '__fish_seen_subcommand_from run' -l max-iterations -r");
    expect(fish.stdout).toContain("-n '__fish_seen_subcommand_from logs' -l follow -s f");
  });

  it('names the shells it supports', async () => {
    const r = await runCliInMemory(['completion', 'tcsh'], { cwd: ROOT });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bash, zsh and fish');
  });
});
