import type { BackendName, RalphConfig } from '../config/schema.ts';
import { RalphError } from '../errors.ts';
import { findExecutable } from '../process/find-executable.ts';
import { ampBackend } from './amp.ts';
import { claudeBackend } from './claude.ts';
import { clineBackend } from './cline.ts';
import { createCodexBackend } from './codex.ts';
import { copilotBackend } from './copilot.ts';
import { cursorBackend } from './cursor.ts';
import { createCustomBackend } from './custom.ts';
import { fakeBackend } from './fake.ts';
import { geminiBackend } from './gemini.ts';
import { createOpencodeBackend } from './opencode.ts';
import { qwenBackend } from './qwen.ts';
import type { Backend } from './types.ts';

/** The agent CLIs `cli.backend: auto` looks for on PATH, in this order: backend → executable. */
export const AUTO_ORDER: readonly (readonly [BackendName, string])[] = [
  ['claude', 'claude'],
  ['codex', 'codex'],
  ['gemini', 'gemini'],
  ['opencode', 'opencode'],
  ['qwen', 'qwen'],
  ['copilot', 'copilot'],
  ['cline', 'cline'],
  ['cursor', 'cursor-agent'],
  // Last: without AMP_API_KEY it waits for a login on stdout.
  ['amp', 'amp'],
];

/** The first backend of AUTO_ORDER whose executable is on PATH, or undefined. */
export function pickAutoBackend(env: NodeJS.ProcessEnv, cwd: string): BackendName | undefined {
  return AUTO_ORDER.find(([, command]) => findExecutable(command, env.PATH, cwd).found)?.[0];
}

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
    case 'gemini':
      return geminiBackend;
    case 'opencode':
      return createOpencodeBackend({ model: config.cli.model });
    case 'copilot':
      return copilotBackend;
    case 'cline':
      return clineBackend;
    case 'amp':
      return ampBackend;
    case 'cursor':
      return cursorBackend;
    case 'qwen':
      return qwenBackend;
    case 'auto':
      throw new RalphError(
        'backend_unavailable',
        `cli.backend is auto but none of ${AUTO_ORDER.map(([, c]) => c).join(', ')} is on PATH: install one, or set cli.backend / RALPH_AGENT / -b (available: ${[...AUTO_ORDER.map(([b]) => b), 'custom', 'fake'].join(', ')})`,
      );
    default:
      throw new RalphError(
        'backend_unavailable',
        `backend "${name}" is not supported by this version of ralph yet (available: claude, codex, gemini, opencode, qwen, copilot, cline, cursor, amp, custom, fake); ` +
          'to drive that CLI now, use cli.backend: custom with cli.command',
      );
  }
}
