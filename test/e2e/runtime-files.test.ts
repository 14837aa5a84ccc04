import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../src/config/presets.ts';
import { isExcludedPath } from '../../src/git/porcelain.ts';
import { RUNTIME_PATHS } from '../../src/state/paths.ts';
import { makeWorkspace, RALPH, readRecords, runRalph } from '../helpers/workspace.ts';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

function gitRepo(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Ralph Test');
  git(dir, 'config', 'user.email', 'ralph@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
}

/** A TDD state file with its sections filled in (the preset's own is a template Ralph refuses). */
const TDD_STATE = '# Goal\nA file.\n\n# Current task\nWrite it.\n\n# Constraints\n- none\n\n# History\n';
const TDD_REPORT =
  '{ write: { path: loop/last_output.md, content: "# Iteration {{iteration}}\\n\\n## Status\\nENGINEERING\\n\\n## Actions\\na\\n\\n## Changes\\nc\\n\\n## Tests\\nt\\n\\n## Current state\\ns\\n\\n## Next\\nn\\n\\n## Notes\\nn\\n" } }';

/**
 * An agent that works like a real one: writes a file, then commits everything itself with
 * `git add -A` (as agents told to commit do) — the runtime files must not come along.
 */
const agentScript = (preset: string) =>
  [
    'turns:',
    '  - do:',
    '      - run: "echo work > work-$RALPH_ITERATION.txt && git add -A && git commit -qm agent-$RALPH_ITERATION"',
    ...(preset === 'tdd' ? [`      - ${TDD_REPORT}`] : []),
  ].join('\n');

/** What a user keeps in git under .ralph/: prompts, the validate hook, memories, the ignore file, the editor schema. */
const USER_FILES =
  /^\.ralph\/(\.gitignore|prompts\/.*|validate\.sh|agent\/memories\.md|ralph\.schema\.json)$/;

/** Every path any commit of the repository ever contained. */
function committedPaths(dir: string): string[] {
  const out = git(dir, 'log', '--all', '--name-only', '--format=');
  return [...new Set(out.split('\n').filter((l) => l.trim() !== ''))];
}

describe('Ralph never commits its own runtime files, with any preset', () => {
  it.each(PRESETS.map((p) => [p.name]))('preset %s with git.commit: true', async (preset) => {
    const dir = makeWorkspace({});
    gitRepo(dir);
    execFileSync(process.execPath, [RALPH, 'init', '--preset', preset, '--backend', 'fake'], { cwd: dir });
    if (preset === 'tdd') writeFileSync(join(dir, 'loop', 'state.md'), TDD_STATE);
    writeFileSync(join(dir, 'agent.yml'), agentScript(preset));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'preset');
    const args = [
      'run',
      '--set',
      'cli.fake_script=agent.yml',
      '--set',
      'git.commit=true',
      '--max-iterations',
      '2',
    ];
    if (preset === 'tdd') args.push('--set', 'gates.tests.command=sh -c true');
    // The board idles until work/ or proposed/ change; the check needs two iterations, not the wait.
    if (preset === 'board') args.push('--set', 'event_loop.idle_watch=[]');
    const r = await runRalph(args, dir);
    expect(readRecords(dir).length, r.stdout + r.stderr).toBeGreaterThan(0);
    const committed = committedPaths(dir);
    expect(committed).toContain('work-1.txt');
    expect(committed).toContain('.ralph/.gitignore');
    expect(committed.filter((p) => isExcludedPath(p, RUNTIME_PATHS))).toEqual([]);
    // Independent of RUNTIME_PATHS: under .ralph/ only the user's own files are ever committed.
    expect(committed.filter((p) => p.startsWith('.ralph/') && !USER_FILES.test(p))).toEqual([]);
    // Ralph's runtime files exist, so the check above is not vacuous.
    expect(git(dir, 'status', '--porcelain', '--ignored')).toMatch(/!! \.ralph\/(state\.json|logs\/|runs\/)/);
  });
});

describe('.ralph/.gitignore', () => {
  it('ralph run adds the missing runtime patterns before the first agent runs, keeping the user lines', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      '.ralph/.gitignore': '# mine\nmy-notes.md\nstate.json*',
      'ralph.yml': 'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml':
        'turns:\n  - do: [{ run: "cp .ralph/.gitignore seen-by-agent" }, { print: "LOOP_COMPLETE" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stderr).toBe(0);
    const ignore = readFileSync(join(dir, '.ralph', '.gitignore'), 'utf8');
    expect(ignore.startsWith('# mine\nmy-notes.md\nstate.json*\n')).toBe(true);
    for (const p of RUNTIME_PATHS) expect(ignore.split('\n')).toContain(p.slice('.ralph/'.length));
    expect(ignore.match(/^state\.json\*$/gm)).toHaveLength(1);
    expect(readFileSync(join(dir, 'seen-by-agent'), 'utf8')).toBe(ignore);
    expect(r.stdout + r.stderr).toContain('to .ralph/.gitignore');
    // A second run has nothing to add and says nothing about it.
    const again = await runRalph(['run', '--fresh'], dir);
    expect(again.stdout + again.stderr).not.toContain('.gitignore');
  });

  it('in a git workspace where ralph init never ran, git shows nothing of .ralph/ after a run; ralph init makes the file committable', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Do it.\n',
      'ralph.yml': 'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml': agentScript('solo'),
    });
    gitRepo(dir);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'project');
    const r = await runRalph(['run', '--max-iterations', '1'], dir);
    expect(readRecords(dir).length, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toContain('wrote .ralph/.gitignore');
    // The agent's `git add -A` took its work and nothing under .ralph/; the tree shows no .ralph/ either.
    expect(committedPaths(dir)).toContain('work-1.txt');
    expect(committedPaths(dir).filter((p) => p.startsWith('.ralph/'))).toEqual([]);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'status', '--porcelain', '--ignored')).toMatch(/!! \.ralph\//);
    // `ralph init` (the user now keeps prompts in git): the file stops ignoring itself, runtime files stay ignored.
    const init = await runRalph(['init', '--preset', 'solo', '--force'], dir);
    expect(init.stdout, init.stderr).toContain('.ralph/.gitignore');
    const ignore = readFileSync(join(dir, '.ralph', '.gitignore'), 'utf8');
    expect(ignore.split('\n')).not.toContain('.gitignore');
    for (const p of RUNTIME_PATHS) expect(ignore.split('\n')).toContain(p.slice('.ralph/'.length));
    const untracked = git(dir, 'status', '--porcelain', '--untracked-files=all');
    expect(untracked).toContain('?? .ralph/.gitignore');
    expect(untracked.split('\n').filter((l) => isExcludedPath(l.slice(3), RUNTIME_PATHS))).toEqual([]);
  });

  it('ralph init writes it for every preset', async () => {
    for (const preset of PRESETS.map((p) => p.name)) {
      const dir = makeWorkspace({});
      const r = await runRalph(['init', '--preset', preset], dir);
      expect(r.stdout, preset).toContain('.ralph/.gitignore');
      expect(readFileSync(join(dir, '.ralph', '.gitignore'), 'utf8')).toContain('\nruns/\n');
    }
  });
});
