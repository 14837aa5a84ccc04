/** One `- [ ]` / `- [x]` line of a design document. */
export interface Task {
  /** The text after the checkbox, trimmed (markdown kept as written). */
  text: string;
  done: boolean;
  /** 1-based line number in the document. */
  line: number;
  /** The nearest sub-heading inside the milestone (`### Group`), or null. */
  group: string | null;
}

/** A `## Milestone N: Title` section and the tasks under it. */
export interface Milestone {
  /** The text after `Milestone N:` (`State Management (M1)`), or `Milestone N` when there is none. */
  title: string;
  /** N from the heading; null for the implicit milestone of a document without milestone headings. */
  number: number | null;
  tasks: Task[];
}

/** A parsed design document (seed 003): milestones in document order. */
export interface Checklist {
  milestones: Milestone[];
}

/** Title of the single milestone that holds the tasks of a document without milestone headings. */
export const IMPLICIT_MILESTONE = 'Tasks';

/** A line of markdown with what a reader would see of it. */
export interface MarkdownLine {
  /** 1-based. */
  line: number;
  raw: string;
  /** The line without HTML comments; '' inside (and on the fences of) a fenced code block. */
  visible: string;
}

const FENCE_OPEN = /^\s*(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const TASK = /^\s*(?:[-*+]|\d{1,9}[.)])\s+\[([ xX])\]\s+(\S.*)$/;
// `Milestone <n>` then `:` / `—` / `–` / `-` and the title, or nothing (`## Milestone 3`).
const MILESTONE = /\bMilestone\s+(\d+)\s*(?:$|[:—–-]\s*(.*)$)/i;

/**
 * Splits markdown into lines, blanking fenced code blocks and HTML comments, so examples in a
 * document (a checklist inside ``` fences, a template in `<!-- -->`) are never taken for real ones.
 * An unclosed fence runs to the end of the document, as markdown renders it.
 */
export function scanMarkdown(markdown: string): MarkdownLine[] {
  const out: MarkdownLine[] = [];
  let fence: { char: string; length: number } | null = null;
  let inComment = false;
  markdown.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (fence) {
      const close = raw.match(/^\s*(`{3,}|~{3,})\s*$/);
      if (close?.[1] && close[1][0] === fence.char && close[1].length >= fence.length) fence = null;
      out.push({ line, raw, visible: '' });
      return;
    }
    let visible = '';
    let rest = raw;
    while (rest.length > 0) {
      if (inComment) {
        const end = rest.indexOf('-->');
        if (end < 0) break;
        rest = rest.slice(end + 3);
        inComment = false;
      } else {
        const start = rest.indexOf('<!--');
        if (start < 0) {
          visible += rest;
          break;
        }
        visible += rest.slice(0, start);
        rest = rest.slice(start + 4);
        inComment = true;
      }
    }
    const open = visible.match(FENCE_OPEN);
    // A backtick "fence" whose info string holds a backtick is inline code (CommonMark).
    if (open?.[1] && !(open[1][0] === '`' && (open[2] ?? '').includes('`'))) {
      fence = { char: open[1][0] as string, length: open[1].length };
      out.push({ line, raw, visible: '' });
      return;
    }
    out.push({ line, raw, visible });
  });
  return out;
}

/** `{ level, text }` of an ATX heading (`## Title ##` → 2, "Title"), or null. */
export function parseHeading(visible: string): { level: number; text: string } | null {
  const m = visible.match(HEADING);
  if (!m?.[1]) return null;
  return { level: m[1].length, text: (m[2] ?? '').trim() };
}

function parseMilestoneHeading(text: string): { number: number; title: string } | null {
  const m = text.match(MILESTONE);
  if (!m?.[1]) return null;
  const number = Number.parseInt(m[1], 10);
  const title = (m[2] ?? '').trim();
  return { number, title: title.length > 0 ? title : `Milestone ${number}` };
}

/**
 * Parses a design document in seed 003's format.
 *
 * - A milestone is any heading of level 2 or deeper containing `Milestone <n>` followed by `:`,
 *   `—` or `-` (or nothing): `## Milestone 1: Setup`, `### 4.1 Milestone 1: State Management (M1)`.
 * - A task is a `- [ ]` / `- [x]` / `* [X]` / `1. [ ]` line at any indentation. It belongs to the
 *   milestone whose section it is in; deeper headings inside that section are groups (the nearest
 *   one is kept on the task), and a heading at the milestone's level or above ends the section
 *   (`## 5. Module Structure` after `### 4.5 Milestone 5`).
 * - Tasks outside every milestone section are ignored when the document has milestones (an
 *   acceptance list elsewhere is not the plan). Without any milestone heading, every task goes
 *   into one implicit milestone titled {@link IMPLICIT_MILESTONE}, grouped by its nearest heading.
 * - Fenced code blocks and HTML comments are ignored.
 */
export function parseChecklist(markdown: string): Checklist {
  const milestones: Milestone[] = [];
  const loose: Task[] = [];
  let section: { milestone: Milestone; level: number } | null = null;
  let group: string | null = null;
  let looseGroup: string | null = null;
  for (const { line, visible } of scanMarkdown(markdown)) {
    const heading = parseHeading(visible);
    if (heading) {
      const milestone = heading.level >= 2 ? parseMilestoneHeading(heading.text) : null;
      if (milestone) {
        section = { milestone: { ...milestone, tasks: [] }, level: heading.level };
        milestones.push(section.milestone);
        group = null;
      } else if (section && heading.level > section.level) {
        group = heading.text;
      } else {
        section = null;
        group = null;
      }
      looseGroup = heading.level >= 2 ? heading.text : null;
      continue;
    }
    const task = visible.match(TASK);
    if (!task?.[1] || task[2] === undefined) continue;
    const done = task[1] !== ' ';
    const text = task[2].trim();
    if (section) section.milestone.tasks.push({ text, done, line, group });
    else loose.push({ text, done, line, group: looseGroup });
  }
  if (milestones.length === 0 && loose.length > 0) {
    milestones.push({ title: IMPLICIT_MILESTONE, number: null, tasks: loose });
  }
  return { milestones };
}
