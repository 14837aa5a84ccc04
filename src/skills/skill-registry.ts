import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SkillsConfig } from '../config/schema/prompt.ts';
import { RalphError } from '../errors.ts';
import { statCached } from '../state/io/stat-cache.ts';
import { skillDirs } from './skill-dirs.ts';
import type { parseSkillFile, SkillFile } from './skill-file.ts';

/** parseSkillFile, passed in: the YAML parser is loaded only where skills are configured (loadSkills). */
export type SkillParser = typeof parseSkillFile;

/** A skill as the loop and `ralph tools skill` see it: its file, after the config's overrides. */
export interface Skill extends SkillFile {
  /** The skill's file (absolute). */
  path: string;
  /** `skills.overrides.<name>.auto_inject`: its text goes into every prompt that lists it. */
  autoInject: boolean;
  /** The file is longer than MAX_SKILL_BYTES: `body` holds its start only. */
  truncated: boolean;
}

/** Bytes of a skill file read at most: a huge or endless file cannot fill memory or a prompt. */
export const MAX_SKILL_BYTES = 256 * 1024;
/** Entries of one skills directory looked at, at most (a directory of thousands is a mistake). */
export const MAX_DIR_ENTRIES = 500;

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
// A regular file only: a FIFO or a device planted in a skills directory would block or never end.
const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** The first MAX_SKILL_BYTES of a regular file, or undefined when it cannot be read as one. */
function readBounded(path: string): { text: string; truncated: boolean } | undefined {
  let fd: number;
  try {
    // Opened only after skillFilesIn saw a regular file; the loop reads skills between iterations,
    // when no agent process is left to swap one for a FIFO in between.
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(MAX_SKILL_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const truncated = n > MAX_SKILL_BYTES;
    // Cut at a line end so no character or markdown line is split.
    const end = truncated ? buf.lastIndexOf(0x0a, MAX_SKILL_BYTES - 1) + 1 || MAX_SKILL_BYTES : n;
    const kept = buf.subarray(0, end);
    return { text: kept.toString('utf8'), truncated };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The fallback name of a skill file: `NAME.md` → NAME, `NAME/SKILL.md` → NAME. */
const fallbackName = (path: string) =>
  basename(path) === 'SKILL.md' ? basename(dirname(path)) : basename(path, '.md');

// Read again only when the file changed: the loop lists the skills in every iteration's prompt.
const readSkill = statCached(readBounded);

/** The skill files of one directory, in name order: `*.md` and `*\/SKILL.md`. */
function skillFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort().slice(0, MAX_DIR_ENTRIES);
  } catch {
    return []; // missing or unreadable: `ralph tools skill list` names the directories searched
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    if (name.endsWith('.md') && isFile(path)) return [path];
    const inner = join(path, 'SKILL.md');
    return isDir(path) && isFile(inner) ? [inner] : [];
  });
}

/**
 * Every skill of `skills.dirs`, by name (a later directory's replaces an earlier one's), after
 * `skills.overrides`: dropped, its hats, backends and tags replaced, injected whole. Read fresh
 * each call (unchanged files from a stat-keyed cache). Absent or disabled skills: none.
 */
export function discoverSkills(
  skills: SkillsConfig | undefined,
  workspace: string,
  parse: SkillParser,
): Skill[] {
  const found = new Map<string, Skill>();
  for (const dir of skillDirs(skills, workspace)) {
    for (const path of skillFilesIn(dir)) {
      const read = readSkill(path);
      if (!read) continue;
      const file = parse(read.text, fallbackName(path));
      found.set(file.name, { ...file, path, autoInject: false, truncated: read.truncated });
    }
  }
  for (const [name, o] of Object.entries(skills?.overrides ?? {})) {
    const skill = found.get(name);
    if (!skill) continue;
    if (o.enabled === false) {
      found.delete(name);
      continue;
    }
    found.set(name, {
      ...skill,
      hats: o.hats.length > 0 ? o.hats : skill.hats,
      backends: o.backends.length > 0 ? o.backends : skill.backends,
      tags: o.tags.length > 0 ? o.tags : skill.tags,
      autoInject: o.auto_inject ?? skill.autoInject,
    });
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * discoverSkills with its parser: none, and nothing loaded, when `skills:` is absent, disabled or has
 * no dirs (a run's start stays without the YAML parser); else the parser's module is loaded once.
 */
export async function loadSkills(skills: SkillsConfig | undefined, workspace: string): Promise<Skill[]> {
  if (!skills?.enabled || skills.dirs.length === 0) return [];
  const { parseSkillFile } = await import('./skill-file.ts');
  return discoverSkills(skills, workspace, parseSkillFile);
}

/** The skill of this name, or a RalphError listing the skills there are and where they were looked for. */
export function findSkill(skills: readonly Skill[], name: string, dirs: readonly string[]): Skill {
  const skill = skills.find((s) => s.name === name);
  if (skill) return skill;
  const where =
    dirs.length === 0
      ? 'no skills are configured: add `skills: {dirs: [DIR]}` to ralph.yml'
      : skills.length === 0
        ? `no skill files in ${dirs.join(', ')} (skills.dirs of ralph.yml)`
        : `the skills are: ${skills.map((s) => s.name).join(', ')}`;
  throw new RalphError('skill_not_found', `no skill "${name}": ${where}`);
}

/** What `ralph tools skill load` prints: the body in `<NAME-skill>` tags, as ralph-orchestrator does. */
export function skillText(skill: Skill): string {
  const cut = skill.truncated ? `\n[cut at ${MAX_SKILL_BYTES / 1024} KB: the rest is in ${skill.path}]` : '';
  return `<${skill.name}-skill>\n${skill.body.trimEnd()}${cut}\n</${skill.name}-skill>\n`;
}
