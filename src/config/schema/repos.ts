import { z } from 'zod';
import { repoName } from './repo-name.ts';
import { gatesSchema } from './verify.ts';

/** One repository of a multi-repository loop (`repos`). */
const repoSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .meta({
      description:
        "The repository's directory: relative to the directory of ralph.yml (the parent the agent runs in), or absolute. It must exist and be a git repository.",
      examples: ['api', '../shared/web'],
    }),
  name: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9._-]+$/, { message: 'may hold only letters, digits, `.`, `_` and `-`' })
    .optional()
    .meta({
      description:
        'The name the prompt, the records, the commits and the messages use; unique among `repos`. Absent: the basename of `path`.',
      examples: ['api'],
    }),
  gates: z
    .strictObject({
      tests: gatesSchema.shape.tests.meta({
        description:
          "This repository's tests instead of `gates.tests` (the same keys), run in the repository. Absent: `gates.tests` runs in it.",
      }),
    })
    .optional()
    .meta({
      description: "This repository's own gates (the keys of the top-level `gates` they replace).",
      examples: [{ tests: { command: 'go test ./...' } }],
    }),
});

export type RepoConfig = z.output<typeof repoSchema>;

/** `repos`: one loop over several git repositories (docs/guide/multi-repo.md). */
export const reposSchema = z
  .array(repoSchema)
  .min(1)
  .superRefine((repos, check) => {
    const seen = new Map<string, number>();
    repos.forEach((repo, i) => {
      const name = repoName(repo);
      const first = seen.get(name);
      if (first === undefined) seen.set(name, i);
      else
        check.addIssue({
          code: 'custom',
          path: [i, 'name'],
          message: `the name "${name}" is taken by repos[${first}]: give one of them another \`name\``,
        });
    });
  })
  .optional()
  .meta({
    description:
      "Several git repositories in one loop (docs/guide/multi-repo.md): the agent runs in the directory of ralph.yml and sees them all; after each iteration each repository it changed runs its gates, gets its own commit (`git.commit`) and push (`git.push`), and completion needs every repository's gates to pass. Absent: the workspace is the one repository.",
    examples: [[{ path: 'api' }, { path: 'web', name: 'frontend' }]],
  });
