import { RalphError } from '../errors.ts';

/** What Ralph says on Windows (its process groups, signals and `/proc` or `ps` table are POSIX's). */
export const WINDOWS_REFUSAL =
  'Windows is not supported yet: use WSL (install it with `wsl --install`, then install and run ralph inside it); see docs/operations/platforms.md';

/**
 * Why Ralph cannot run on `platform`, or undefined when it can: everything but Windows is POSIX
 * (Linux reads /proc, macOS and the others ps).
 */
export function unsupportedPlatform(platform: NodeJS.Platform): string | undefined {
  return platform === 'win32' ? WINDOWS_REFUSAL : undefined;
}

/**
 * Refuses to start a loop where Ralph cannot supervise one: a RalphError `unsupported_platform`
 * (exit 1) before anything is spawned or written.
 */
export function assertSupportedPlatform(platform: NodeJS.Platform = process.platform): void {
  const why = unsupportedPlatform(platform);
  if (why !== undefined) throw new RalphError('unsupported_platform', why);
}
