import { join } from 'node:path';
import { initGitRepo } from './git-workspace.ts';
import { fakeConfig, makeWorkspace } from './workspace.ts';

/**
 * The repositories of the multi-repository e2e tests (docs/guide/multi-repo.md): api and web, whose
 * tests check a file the agent writes — api needs `v2.txt`, web a client on v2.
 */
export const REPO_FILES: Record<string, string> = {
  'api/check.sh': 'test -f v2.txt || { echo "api: v2.txt is missing"; exit 4; }\n',
  'api/README': 'api\n',
  'web/check.sh': 'grep -q v2 client.txt || { echo "web: the client is not on v2"; exit 5; }\n',
  'web/client.txt': 'v1\n',
};

/** Fake-agent actions that move both repositories to v2 (their gates pass) and complete. */
export const BOTH_TO_V2 = [
  '      - write: { path: api/v2.txt, content: "v2\\n" }',
  '      - write: { path: web/client.txt, content: "v2\\n" }',
  '      - print: "Move the API and the client to v2"',
  '      - print: LOOP_COMPLETE',
];

/** Fake-agent turns: iteration 1 moves api to v2 (no completion), the next one web, and completes. */
export const API_THEN_WEB = [
  '  - when: { iteration: 1 }',
  '    do:',
  '      - write: { path: api/v2.txt, content: "v2\\n" }',
  '      - print: "The API on v2"',
  '  - do:',
  '      - write: { path: web/client.txt, content: "v2\\n" }',
  '      - print: "The client on v2"',
  '      - print: LOOP_COMPLETE',
];

/**
 * A parent directory (not a repository) holding ralph.yml, the fake agent's `turns` and the
 * repositories `dirs` (each a git repository with a first commit): `repos` is ralph.yml's `repos:`
 * list, `gates` more keys under `gates:` (its tests run `sh check.sh`), `git` more under `git:`.
 */
export function multiRepoProject(o: {
  turns: string[];
  repos: string;
  dirs: string[];
  gates?: string | undefined;
  git?: string | undefined;
  maxIterations?: number | undefined;
  files?: Record<string, string>;
}): string {
  const dir = makeWorkspace({
    'PROMPT.md': 'change the API and its client together\n',
    'ralph.yml': `${fakeConfig({ max_iterations: o.maxIterations ?? 2 })}repos:\n${o.repos}gates:\n  tests:\n    command: sh check.sh\n${o.gates ?? ''}git:\n  commit: true\n${o.git ?? ''}`,
    'fake-agent.yml': ['turns:', ...o.turns].join('\n'),
    ...REPO_FILES,
    ...o.files,
  });
  for (const name of o.dirs) initGitRepo(join(dir, name));
  return dir;
}
