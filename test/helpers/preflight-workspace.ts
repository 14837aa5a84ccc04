import { execFileSync } from 'node:child_process';
import { makeWorkspace } from './workspace.ts';

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir });

/** A committed git workspace with a fake agent that would complete at once. */
export function preflightWorkspace(yml: string, files: Record<string, string> = {}): string {
  const dir = makeWorkspace({
    'PROMPT.md': 'Do it.\n',
    'agent.yml': 'turns:\n  - do: [{ run: "touch agent-ran" }, { print: LOOP_COMPLETE }]\n',
    'ralph.yml': yml,
    ...files,
  });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

/** A ralph.yml for the fake backend playing agent.yml. */
export const FAKE =
  'event_loop:\n  prompt_file: PROMPT.md\ncli:\n  backend: fake\n  fake_script: agent.yml\n';
