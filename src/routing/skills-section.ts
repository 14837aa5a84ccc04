/** A skill as the prompt shows it. */
export interface PromptSkill {
  name: string;
  /** One line ('' when the skill has none). */
  description: string;
  /** Its text, for a skill injected whole (`auto_inject`); absent: only its line is listed. */
  text?: string | undefined;
}

/** Skills listed at most; the rest are named by `ralph tools skill list`. */
export const MAX_LISTED_SKILLS = 30;
/** Characters of a listed name or description at most. */
export const MAX_SKILL_LINE = 160;
/** Characters of one injected skill at most, and of all of them together. */
export const MAX_INJECTED_SKILL = 8000;
export const MAX_INJECTED_SKILLS = 16000;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The injected text of one skill within `max` characters, cut at a line start. */
function injected(skill: PromptSkill, max: number): string {
  const text = (skill.text ?? '').trim();
  const at = text.lastIndexOf('\n', max);
  const body =
    text.length <= max
      ? text
      : `${text.slice(0, at > 0 ? at : max)}\n[cut: \`ralph tools skill load ${skill.name}\` prints it whole]`;
  return `<${skill.name}-skill>\n${body}\n</${skill.name}-skill>`;
}

/**
 * The prompt's skills section (pure): one line per skill with the command that loads it, then the
 * text of the skills injected whole, each within MAX_INJECTED_SKILL and all within
 * MAX_INJECTED_SKILLS (one past that budget keeps only its line). No skills: ''.
 */
export function skillsSection(skills: readonly PromptSkill[]): string {
  if (skills.length === 0) return '';
  const listed = skills.slice(0, MAX_LISTED_SKILLS);
  const lines = listed.map((s) => {
    const name = cut(s.name, MAX_SKILL_LINE);
    return s.description ? `- ${name}: ${cut(s.description, MAX_SKILL_LINE)}` : `- ${name}`;
  });
  const more = skills.length - listed.length;
  if (more > 0) lines.push(`- … ${more} more: \`ralph tools skill list\``);
  const parts = [
    `## Skills\nWhen one applies, read it with \`ralph tools skill load <name>\`:\n${lines.join('\n')}`,
  ];
  let budget = MAX_INJECTED_SKILLS;
  for (const skill of listed) {
    if (skill.text === undefined) continue;
    const block = injected({ ...skill, name: cut(skill.name, MAX_SKILL_LINE) }, MAX_INJECTED_SKILL);
    if (block.length > budget) continue;
    budget -= block.length;
    parts.push(block);
  }
  return parts.join('\n\n');
}
