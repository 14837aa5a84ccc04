import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// This module lives one level below the package root both as src/x.ts and dist/x.js,
// so these resolve the same from the sources (tests) and from the build.
/** The `ralph` executable shipped in the package. */
export const RALPH_BIN = fileURLToPath(new URL('../bin/ralph', import.meta.url));
/** Directory holding `ralph`, put first on the agent's PATH. */
export const RALPH_BIN_DIR = fileURLToPath(new URL('../bin/', import.meta.url)).replace(/\/$/, '');
/** The compiled scripted fake agent. */
export const FAKE_AGENT_MAIN = fileURLToPath(new URL('../dist/fake-agent/main.js', import.meta.url));
/** Preset templates shipped with the package (`presets/<name>/`). */
export const PRESETS_DIR = fileURLToPath(new URL('../presets/', import.meta.url)).replace(/\/$/, '');
/** Starter projects shipped with the package (`templates/<name>/`, written by `ralph new`). */
export const TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url)).replace(/\/$/, '');
/** The package's own package.json. */
export const PACKAGE_JSON = fileURLToPath(new URL('../package.json', import.meta.url));
/** The JSON Schema of ralph.yml shipped in the package (kept equal to `ralph config schema`). */
export const SHIPPED_SCHEMA = fileURLToPath(new URL('../schema/ralph.schema.json', import.meta.url));

/** The fields of the package's own package.json that Ralph reads. */
interface PackageManifest {
  version: string;
  peerDependencies?: Record<string, string>;
}

/** The package's own package.json, read once. */
export function packageManifest(): PackageManifest {
  cachedManifest ??= JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as PackageManifest;
  return cachedManifest;
}
let cachedManifest: PackageManifest | undefined;

/** The package's version. */
export function packageVersion(): string {
  return packageManifest().version;
}
