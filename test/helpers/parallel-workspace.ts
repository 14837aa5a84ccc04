import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from './git-workspace.ts';
import { fakeConfig, runRalph } from './workspace.ts';

/**
 * A repository for `ralph run --parallel`: ralph.yml for the fake backend (every iteration
 * committed), the agent's script, and `.ralph/.gitignore` committed as `ralph init` leaves it.
 */
export function makeParallelWorkspace(
  script: string,
  extraConfig = '',
  files: Record<string, string> = {},
  eventLoop: Record<string, unknown> = { max_iterations: 3 },
): string {
  return makeGitWorkspace({
    'PROMPT.md': 'Do the task you are given.\n',
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'ralph.yml': `${fakeConfig(eventLoop)}git:\n  commit: true\n${extraConfig}`,
    'fake-agent.yml': script,
    ...files,
  });
}

/** Adds tasks with `ralph tools task add`; returns their ids in order. */
export async function addTasks(dir: string, titles: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const title of titles) {
    const r = await runRalph(['tools', 'task', 'add', title], dir);
    const id = /task-[0-9a-f]{8}/.exec(r.stdout)?.[0];
    if (r.code !== 0 || !id) throw new Error(`task add failed: ${r.stderr}${r.stdout}`);
    ids.push(id);
  }
  return ids;
}

export function parallelState(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(join(dir, '.ralph', 'parallel', 'state.json'), 'utf8'));
}

/**
 * Commits a worker made that are on neither the target nor a kept `ralph/*` branch, found by
 * walking every commit object in the repository (rebased-away originals included): a commit
 * counts as kept when a reachable commit carries the same change (the same patch id).
 */
export function lostWorkerCommits(dir: string, target = 'main'): string[] {
  const all = git(dir, 'cat-file', '--batch-all-objects', '--batch-check')
    .split('\n')
    .filter((l) => l.endsWith(' commit') || / commit \d+$/.test(l))
    .map((l) => l.split(' ')[0] as string);
  const branches = git(dir, 'for-each-ref', '--format=%(refname)', 'refs/heads/ralph/')
    .split('\n')
    .filter(Boolean);
  const reachable = new Set(
    git(dir, 'rev-list', target, ...branches)
      .split('\n')
      .filter(Boolean),
  );
  const patchIds = (commits: string[]) => {
    const out = new Set<string>();
    for (const c of commits) {
      const id = patchId(dir, c);
      if (id) out.add(id);
    }
    return out;
  };
  const kept = patchIds([...reachable]);
  const lost: string[] = [];
  for (const c of all) {
    if (reachable.has(c)) continue;
    const subject = git(dir, 'log', '-1', '--format=%s', c).trim();
    // Only the workers' own commits; a merge commit has no patch id of its own.
    if (!subject.startsWith('ralph: ')) continue;
    const id = patchId(dir, c);
    if (id && !kept.has(id)) lost.push(`${c.slice(0, 8)} ${subject}`);
  }
  return lost;
}

function patchId(dir: string, commit: string): string | null {
  const diff = git(dir, 'show', '--format=', '--no-color', commit);
  if (diff.trim() === '') return null;
  const out = execFileSync('git', ['-C', dir, 'patch-id', '--stable'], { input: diff, encoding: 'utf8' });
  return out.split(' ')[0] || null;
}
