import { statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { SkillsConfig } from '../config/schema/prompt.ts';

// Where the skills are and which of them a hat sees: what the loop needs on every start and every
// prompt, apart from reading the skill files (skill-registry.ts, loaded only when skills are configured).

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** A configured directory: absolute, else under the workspace, else under the nearest parent that has it. */
export function resolveSkillDir(workspace: string, dir: string): string {
  if (isAbsolute(dir)) return dir;
  const own = resolve(workspace, dir);
  if (isDir(own)) return own;
  for (let at = dirname(resolve(workspace)); ; at = dirname(at)) {
    const candidate = join(at, dir);
    if (isDir(candidate)) return candidate;
    if (dirname(at) === at) return own;
  }
}

/** The directories `skills.dirs` names, resolved; none when skills are absent or disabled. */
export function skillDirs(skills: SkillsConfig | undefined, workspace: string): string[] {
  if (!skills?.enabled) return [];
  return skills.dirs.map((d) => resolveSkillDir(workspace, d));
}

/**
 * The skills an iteration's prompt lists (pure): those for its hat (a skill with `hats` is listed to
 * those hats, and in solo mode, where no hat runs) and its backend (`backends`).
 */
export function visibleSkills<S extends { hats: readonly string[]; backends: readonly string[] }>(
  skills: readonly S[],
  hatId: string | null,
  backend: string,
): S[] {
  return skills.filter(
    (s) =>
      (s.hats.length === 0 || hatId === null || s.hats.includes(hatId)) &&
      (s.backends.length === 0 || s.backends.includes(backend)),
  );
}
