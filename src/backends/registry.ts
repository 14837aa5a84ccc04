import type { BackendName, RalphConfig } from '../config/schema.ts';
import { RalphError } from '../errors.ts';
import { claudeBackend } from './claude.ts';
import { createCodexBackend } from './codex.ts';
import { createCustomBackend } from './custom.ts';
import { fakeBackend } from './fake.ts';
import type { Backend } from './types.ts';

/** Resolves `cli.backend` (or a hat's override) to an adapter. */
export function resolveBackend(name: BackendName, config: RalphConfig): Backend {
  switch (name) {
    case 'custom':
      return createCustomBackend(config.cli.output_format);
    case 'fake':
      return fakeBackend;
    case 'claude':
      return claudeBackend;
    case 'codex':
      return createCodexBackend({ model: config.cli.model });
    case 'auto':
      throw new RalphError(
        'backend_unavailable',
        'no backend selected: set cli.backend in ralph.yml or pass -b (available in this version: claude, codex, custom, fake)',
      );
    default:
      throw new RalphError(
        'backend_unavailable',
        `backend "${name}" is not supported by this version of ralph yet (available: claude, codex, custom, fake); ` +
          'to drive that CLI now, use cli.backend: custom with cli.command',
      );
  }
}
