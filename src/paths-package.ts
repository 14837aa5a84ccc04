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
