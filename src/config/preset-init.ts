import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { RalphError } from '../errors.ts';
import { copyFile, writeFileInPlace } from '../state/io/file-writes.ts';
import { findPreset, presetFile } from './presets.ts';
import { BACKEND_NAMES, type BackendName } from './schema/backend-names.ts';

// Writing a preset edits YAML (the yaml library); finding one does not, so `ralph run --preset`
// reads presets.ts without loading the YAML parser when its config comes from the cache.

/**
 * Writes a preset into `dir`. Existing files are never overwritten unless `force` is set; the
 * check happens before anything is written, so a refusal leaves the directory untouched.
 */
export function initPreset(
  dir: string,
  name: string,
  opts: { force?: boolean; backend?: string | undefined } = {},
): string[] {
  const preset = findPreset(name);
  if (opts.backend !== undefined) checkBackend(opts.backend);
  const clashes = preset.files.filter((f) => existsSync(join(dir, f)));
  if (clashes.length > 0 && !opts.force) {
    throw new RalphError(
      'init_exists',
      `${clashes.join(', ')} already exist in ${dir}; pass --force to overwrite`,
    );
  }
  const written: string[] = [];
  for (const file of preset.files) {
    const target = join(dir, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFile(presetFile(preset.name, file), target);
    // Set the mode explicitly: a packed or unzipped package may have lost the executable bit.
    if (preset.executable?.includes(file)) chmodSync(target, 0o755);
    written.push(file);
  }
  for (const d of preset.dirs) mkdirSync(join(dir, d), { recursive: true });
  if (opts.backend !== undefined) setBackend(join(dir, 'ralph.yml'), opts.backend as BackendName);
  return written;
}

/** Refuses a `--backend` value that names no backend (before anything is written). */
export function checkBackend(backend: string): BackendName {
  if (!(BACKEND_NAMES as readonly string[]).includes(backend))
    throw new RalphError('usage', `unknown backend "${backend}"; choose one of ${BACKEND_NAMES.join(', ')}`);
  return backend as BackendName;
}

/** The line each preset carries, commented, under its words on the sandbox (docs/guide/sandbox.md). */
const SANDBOX_LINE = /^# sandbox: on$/m;

/** A preset's ralph.yml text with its `# sandbox: on` line uncommented; undefined when it has none. Pure. */
export function sandboxOnText(text: string): string | undefined {
  return SANDBOX_LINE.test(text) ? text.replace(SANDBOX_LINE, 'sandbox: on') : undefined;
}

/**
 * `ralph init` where the sandbox works: turns on the preset's commented `sandbox: on` line, keeping
 * every other line as written. Returns whether it did (a file without the line is left alone).
 */
export function enableSandbox(file: string): boolean {
  const text = sandboxOnText(readFileSync(file, 'utf8'));
  if (text === undefined) return false;
  writeFileInPlace(file, text);
  return true;
}

/** Sets cli.backend in a ralph.yml, keeping its comments and layout. */
export function setBackend(file: string, backend: BackendName): void {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  doc.setIn(['cli', 'backend'], backend);
  writeFileInPlace(file, String(doc));
}
