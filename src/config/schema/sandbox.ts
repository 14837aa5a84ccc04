import { z } from 'zod';

/** The sandbox modes (docs/guide/sandbox.md): none, Ralph's own wrapper, or the backend's own sandbox. */
export const SANDBOX_MODES = ['off', 'on', 'native'] as const;

const modeSchema = z.enum(SANDBOX_MODES).meta({
  description:
    "`off`: the agent runs as you, with everything you can reach. `on`: Ralph wraps the agent process (bubblewrap on Linux, sandbox-exec on macOS): it can write only its work, sees none of your home but its own CLI config, and cannot touch git hooks/config, `.ralph/` state or protected files. `native`: the backend's own sandbox (codex, gemini, claude), refused for a backend that has none.",
});

/** `sandbox`: what the agent process may touch (a mode, or the mode with its widenings). */
export const sandboxSchema = z
  .union([
    modeSchema,
    z.strictObject({
      mode: modeSchema.default('on'),
      allow_read: z
        .array(z.string().min(1))
        .default([])
        .meta({
          description:
            'More paths the sandboxed agent may read (absolute or `~/…`), e.g. a shared toolchain under your home. Missing paths are skipped.',
          examples: [['~/.cargo', '~/.rustup']],
        }),
      allow_write: z
        .array(z.string().min(1))
        .default([])
        .meta({
          description:
            'More paths the sandboxed agent may write (absolute or `~/…`), e.g. a package cache. Missing paths are skipped.',
          examples: [['~/.cache/pip']],
        }),
      network: z.enum(['on', 'off']).default('on').meta({
        description:
          "`on`: the host's network (an agent CLI must reach its model). `off`: none at all, for an agent that needs none (a local `custom` command).",
      }),
    }),
  ])
  .meta({
    description:
      'The sandbox every agent runs in (docs/guide/sandbox.md): `off`, `on` or `native`, or `{mode, allow_read, allow_write, network}`. `ralph run --sandbox MODE` / `--no-sandbox` override it for one run.',
    examples: ['on', { mode: 'on', allow_read: ['~/.cargo'], network: 'on' }],
  });
