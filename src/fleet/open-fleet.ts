import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RalphError } from '../errors.ts';
import { PACKAGE_JSON, packageManifest } from '../paths-package.ts';
import type { JobEngine } from './job-engine.ts';

// The fleet's job engine (BullMQ on ioredis, which brings msgpackr) is an optional peer dependency:
// `npm install -g ralph-harness` leaves it out, so `ralph run`, the TUI and the dashboard install
// without it. This module is the one door to it: nothing else imports bullmq-engine.ts, and
// nothing here imports BullMQ or ioredis until a fleet command asks.

/** The packages the fleet needs beside Ralph (its optional peer dependencies). */
export const FLEET_PACKAGES = ['bullmq', 'ioredis'] as const;

/** How this copy of Ralph was installed, which decides how packages are added beside it. */
export type InstallKind = 'global' | 'local' | 'checkout';

/**
 * How the package at `root` was installed: inside a `node_modules/` with a `.bin/ralph` link is a
 * project's dependency; inside one without (`<prefix>/lib/node_modules/`, where `ralph` is linked
 * from `<prefix>/bin/`) is `npm install -g`; anywhere else is a clone of the repository.
 */
export function installKind(root: string, isFile: (path: string) => boolean): InstallKind {
  const modules = dirname(root);
  if (basename(modules) !== 'node_modules') return 'checkout';
  return isFile(join(modules, '.bin', 'ralph')) ? 'local' : 'global';
}

/** The one line that says what to install, for an install of `kind` at `root`. */
export function fleetInstallAdvice(
  kind: InstallKind,
  root: string,
  ranges: Readonly<Record<string, string>>,
): string {
  const specs = FLEET_PACKAGES.map((name) => (ranges[name] ? `${name}@${ranges[name]}` : name)).join(' ');
  const what = `ralph fleet needs ${FLEET_PACKAGES.join(' and ')}, optional packages that are not installed`;
  if (kind === 'global') return `${what}: run \`npm install -g ${specs}\``;
  if (kind === 'local')
    return `${what}: run \`npm install ${specs}\` in ${dirname(dirname(root))} (the project that depends on ralph-harness)`;
  return `${what}: run \`npm install\` in ${root} (they are among its devDependencies)`;
}

/** BullMQ or ioredis (or a package they need) cannot be loaded: `ralph fleet` says what to install. */
export class FleetDepsMissingError extends RalphError {
  constructor(advice: string, cause: unknown) {
    super('fleet_deps_missing', advice, { cause });
    this.name = 'FleetDepsMissingError';
  }
}

/**
 * Whether `error` is Node's "cannot find package x" (not a missing file of Ralph's own): an ES
 * module's import says "Cannot find package 'x'", require() in the CommonJS CLI bundle "Cannot
 * find module 'x'" with a bare name.
 */
export function isMissingPackage(error: unknown): boolean {
  const e = error as NodeJS.ErrnoException | undefined;
  if (e?.code === 'ERR_MODULE_NOT_FOUND') return /Cannot find package '/.test(e.message);
  return e?.code === 'MODULE_NOT_FOUND' && /^Cannot find module '[^./]/.test(e.message);
}

/**
 * Loads the fleet's job engine (and so BullMQ and ioredis); throws FleetDepsMissingError, with the
 * install command for this install, when they are not there.
 */
export async function loadFleetEngine(): Promise<typeof import('./bullmq-engine.ts')> {
  try {
    return await import('./bullmq-engine.ts');
  } catch (error) {
    if (!isMissingPackage(error)) throw error;
    const root = dirname(PACKAGE_JSON);
    const advice = fleetInstallAdvice(
      installKind(root, existsSync),
      root,
      packageManifest().peerDependencies ?? {},
    );
    throw new FleetDepsMissingError(advice, error);
  }
}

/** Opens the fleet on the Redis at `url` (fails fast when Redis or the fleet's packages are missing). */
export async function openFleet(url: string): Promise<JobEngine> {
  return (await loadFleetEngine()).openBullmqEngine(url);
}
