import { z } from 'zod';

/** `forge`: a pull request per milestone of the checklist workflow on GitHub (docs/operations/forge.md). */
export const forgeSchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, 'expected a host name such as github.example.com')
      .optional()
      .meta({
        description:
          'A GitHub Enterprise host: a push remote on it is GitHub too (github.com always is). Its API is `https://<host>/api/v3` unless `GITHUB_API_URL` says otherwise.',
        examples: ['github.example.com'],
      }),
    pull_requests: z.enum(['per_milestone', 'off']).optional().meta({
      description:
        'per_milestone: each milestone of `completion.checklist` works on branch `ralph/<milestone-slug>`, pushed after every committed iteration; the first push opens a draft pull request (title: the milestone; body: its tasks, gate results and cost, kept current), marked ready with a "Ready for review" comment once its boxes are checked and the gates pass. off: no pull requests. Absent: per_milestone for a checklist run whose push remote (`git.remote`) is on GitHub, else off. The token comes from `GITHUB_TOKEN`, `GH_TOKEN` or `gh auth token`; the API base from `GITHUB_API_URL`.',
    }),
    wait_for_merge: z.boolean().default(true).meta({
      description:
        "After a milestone's pull request is ready, wait (no agent call, status `waiting_for_merge`, the pull request polled once a minute, `ralph resume` polls at once) until it is merged, then start the next milestone from the updated target branch; closed unmerged stops the run (`pr_closed`, exit 1). false (multi-PR mode): start the next milestone at once on a branch stacked on the previous one, its pull request based on the previous milestone's branch.",
    }),
    draft: z.boolean().default(true).meta({
      description: "Open each milestone's pull request as a draft (marked ready when the milestone is done).",
    }),
  })
  .meta({
    description:
      'Pull requests on GitHub or GitHub Enterprise for the checklist workflow (preset `checklist`): one per milestone (docs/operations/forge.md).',
  });
