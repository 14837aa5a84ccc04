import { parse } from 'yaml';

/** What one skill file says about itself: its front matter and the markdown after it. */
export interface SkillFile {
  /** Front matter `name`, else the fallback (the file's stem, or its directory for `SKILL.md`). */
  name: string;
  /** Front matter `description`, on one line ('' when absent). */
  description: string;
  /** The markdown after the front matter. */
  body: string;
  hats: string[];
  backends: string[];
  tags: string[];
}

/** Whitespace runs (newlines included) as one space: a name or a description is one line of the prompt. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}

/** The front matter's fields, or an empty record when its YAML does not parse into a mapping. */
function frontMatterOf(yamlText: string): Record<string, unknown> {
  try {
    const value: unknown = parse(yamlText);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {}; // front matter that is not YAML: the file still loads, by its fallback name
  }
}

/** The front matter's YAML and the body after it, or null when the text opens with none. */
function splitFrontMatter(raw: string): { yaml: string; body: string } | null {
  const text = raw.trimStart();
  if (!text.startsWith('---')) return null;
  const close = text.indexOf('\n---', 3);
  if (close < 0) return null;
  const afterClose = text.indexOf('\n', close + 4);
  const body = afterClose < 0 ? '' : text.slice(afterClose + 1);
  return { yaml: text.slice(3, close), body: body.replace(/^(\r?\n)+/, '') };
}

/**
 * Reads a skill file's text (pure): `---` front matter with `name`, `description`, `hats`,
 * `backends` and `tags`, then markdown. No front matter, or front matter that is not YAML: the whole
 * text (or what follows the block) is the body and the fallback name is the skill's.
 */
export function parseSkillFile(raw: string, fallbackName: string): SkillFile {
  const split = splitFrontMatter(raw);
  const fm = split ? frontMatterOf(split.yaml) : {};
  const name = typeof fm.name === 'string' && oneLine(fm.name) !== '' ? oneLine(fm.name) : fallbackName;
  return {
    name,
    description: typeof fm.description === 'string' ? oneLine(fm.description) : '',
    body: split ? split.body : raw,
    hats: stringList(fm.hats),
    backends: stringList(fm.backends),
    tags: stringList(fm.tags),
  };
}
