import { execFileSync } from 'node:child_process';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { type GithubServer, startGithubServer } from '../support/github-server/server.ts';
import { git, makeGitWorkspace } from './git-workspace.ts';
import { makeWorkspace } from './workspace.ts';

export const REMOTE_URL = 'https://github.com/acme/widgets.git';
export const WRITE_TOKEN = 'ghp_writeToken0123456789abcdefghijklmnopqr';

/** Two milestones of two tasks each. */
const DESIGN = `# Design: widgets

## Milestone 1: Foundation

- [ ] Create the package layout
- [ ] Add a test runner

## Milestone 2: Features

- [ ] Parse arguments
- [ ] Print help
`;

/** Checks off the first unchecked task and journals it; Ralph commits (git.commit). */
const CHECK_ONE = `turns:
  - do:
      - run: |
          n=$(grep -n -m1 -- '- \\[ \\]' DESIGN.md | cut -d: -f1)
          sed -i "\${n}s/- \\[ \\]/- [x]/" DESIGN.md
          echo "iteration {{iteration}}" >> JOURNAL.md
`;

export interface ForgeProject {
  dir: string;
  bare: string;
  github: GithubServer;
  /** The environment of `ralph run`: the scripted API, the token, a short merge poll. */
  env: NodeJS.ProcessEnv;
}

/**
 * A checklist project whose `origin` is https://github.com/acme/widgets.git, rewritten by git's
 * `url.<bare>.insteadOf` to a local bare repository (pushes go there), with the scripted GitHub
 * API knowing the repository and a token that can push. `forge` is the ralph.yml section's body.
 */
export async function forgeProject(forge = ''): Promise<ForgeProject> {
  const dir = makeGitWorkspace(
    {
      'DESIGN.md': DESIGN,
      'JOURNAL.md': '# Journal\n',
      'PROMPT.md': 'Do the next unchecked task of DESIGN.md.\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  max_iterations: 10',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
        'completion:',
        '  checklist: DESIGN.md',
        '  condition: all_tasks',
        'git:',
        '  commit: true',
        ...(forge ? ['forge:', ...forge.split('\n').map((l) => `  ${l}`)] : []),
      ].join('\n'),
      'fake-agent.yml': CHECK_ONE,
    },
    'forge-project',
  );
  return { dir, ...(await onScriptedGithub(dir)) };
}

/**
 * Gives the repository at `dir` an `origin` at https://github.com/acme/widgets.git, rewritten to
 * a new bare repository (main pushed there), and the scripted
 * GitHub API that knows it, with a token that can push.
 */
export async function onScriptedGithub(dir: string): Promise<Omit<ForgeProject, 'dir'>> {
  const remote = makeWorkspace({}, 'forge-remote');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  git(dir, 'remote', 'add', 'origin', REMOTE_URL);
  git(dir, 'config', `url.${remote}.insteadOf`, REMOTE_URL);
  git(dir, 'push', '-q', 'origin', 'main');
  const github = await startGithubServer();
  github.state.addRepo('acme/widgets', { bare: remote });
  github.state.addToken(WRITE_TOKEN, { repos: ['acme/widgets'], push: true });
  const env = {
    GITHUB_API_URL: github.url,
    GITHUB_TOKEN: WRITE_TOKEN,
    GH_TOKEN: '',
    RALPH_FORGE_POLL_SECONDS: '0.2',
  };
  return { bare: remote, github, env };
}
