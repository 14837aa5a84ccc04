import { localTime } from '../state/io/time-format.ts';
import { headings, type MdLine, scanLines, stripComments, titleRemainder } from './markdown-sections.ts';

/** A `- [ ]` / `- [x]` item of `# Creative tasks`. */
export interface CreativeTask {
  text: string;
  done: boolean;
}

/** `loop/state.md` as Ralph reads it (seed 004). */
export interface TddState {
  /** `# Goal`, `# Current task`, `# Constraints`: trimmed, HTML comments removed. */
  goal: string;
  currentTask: string;
  constraints: string;
  creativeTasks: CreativeTask[];
  /** The list items of `# History` (without the `- `), oldest first. */
  history: string[];
  /** False when a required section is missing or empty: the file is corrupted. */
  ok: boolean;
  problems: string[];
}

/** One line Ralph appends to `# History` after an iteration. */
export interface HistoryEntry {
  iteration: number;
  /** A Date, or already `YYYY-MM-DD`. */
  date: Date | string;
  /** The report's status (ENGINEERING, CREATIVE, BLOCKED), or anything else Ralph knows. */
  status: string;
  tests: 'passed' | 'failed' | 'not run';
  summary: string;
}

type SectionKey = 'goal' | 'currentTask' | 'constraints' | 'creativeTasks' | 'history';

const SECTIONS: readonly { key: SectionKey; name: string; required: boolean }[] = [
  { key: 'goal', name: 'Goal', required: true },
  { key: 'currentTask', name: 'Current task', required: true },
  { key: 'constraints', name: 'Constraints', required: true },
  { key: 'creativeTasks', name: 'Creative tasks', required: false },
  { key: 'history', name: 'History', required: false },
];

interface Range {
  heading: number;
  /** The heading's text after the section name (`# Goal: ship it` → `ship it`). */
  rest: string;
  /** Content lines [from, to). */
  from: number;
  to: number;
}

/**
 * Where each known section is (the first heading of that name, any level). A section runs until
 * the next heading of the same or a higher level, or the next known section: so a `## History`
 * nested under `# Constraints` still ends Constraints, and appending history never changes it.
 */
function sectionRanges(lines: readonly MdLine[]): Partial<Record<SectionKey, Range>> {
  const hs = headings(lines);
  const known = hs.map((h) => {
    for (const section of SECTIONS) {
      const rest = titleRemainder(h.title, section.name);
      if (rest !== undefined) return { key: section.key, rest };
    }
    return undefined;
  });
  const ranges: Partial<Record<SectionKey, Range>> = {};
  hs.forEach((h, i) => {
    const section = known[i];
    if (!section || ranges[section.key]) return;
    const next = hs.findIndex((o, j) => j > i && (o.level <= h.level || known[j] !== undefined));
    const to = next < 0 ? lines.length : hs[next]!.line;
    ranges[section.key] = { heading: h.line, rest: section.rest, from: h.line + 1, to };
  });
  return ranges;
}

function contentLines(lines: readonly MdLine[], range: Range | undefined): MdLine[] {
  return range ? lines.slice(range.from, range.to) : [];
}

const CHECKBOX = /^\s*[-*+]\s+\[([ xX])\]\s+(.*\S)\s*$/;
const LIST_ITEM = /^\s*[-*+]\s+(.*\S)\s*$/;

/**
 * Parses `loop/state.md` (pure). `# Goal`, `# Current task` and `# Constraints` must exist with
 * content (HTML comments do not count); otherwise `ok` is false and `problems` says why.
 */
export function parseTddState(markdown: string): TddState {
  const lines = scanLines(markdown);
  const ranges = sectionRanges(lines);
  const text = (key: SectionKey) => {
    const range = ranges[key];
    if (!range) return '';
    const body = contentLines(lines, range).map((l) => l.text);
    return stripComments([range.rest, ...body].join('\n')).trim();
  };
  const problems: string[] = [];
  for (const s of SECTIONS) {
    if (!s.required) continue;
    if (!ranges[s.key]) problems.push(`missing section "# ${s.name}"`);
    else if (text(s.key) === '') problems.push(`section "# ${s.name}" is empty`);
  }
  // List items outside fenced code and HTML comments (a template's commented-out examples).
  const items = (key: SectionKey) => {
    const content = contentLines(lines, ranges[key]);
    const visible = stripComments(content.map((l) => l.text).join('\n')).split('\n');
    return content.flatMap((l, i) => (l.fenced ? [] : [visible[i]!]));
  };
  const creativeTasks = items('creativeTasks').flatMap((l) => {
    const m = CHECKBOX.exec(l);
    return m ? [{ text: m[2]!.trim(), done: m[1] !== ' ' }] : [];
  });
  const history = items('history').flatMap((l) => {
    const m = LIST_ITEM.exec(l);
    return m ? [m[1]!] : [];
  });
  return {
    goal: text('goal'),
    currentTask: text('currentTask'),
    constraints: text('constraints'),
    creativeTasks,
    history,
    ok: problems.length === 0,
    problems,
  };
}

/** Creative tasks not yet ticked. */
export function openCreativeTasks(state: Pick<TddState, 'creativeTasks'>): number {
  return state.creativeTasks.filter((t) => !t.done).length;
}

/** One line of plain text that cannot open or close an HTML comment. */
const oneLine = (s: string) =>
  s.replace(/\s+/g, ' ').replace(/<!--/g, '<! --').replace(/-->/g, '- ->').trim();

/** `- Iteration 12 (2026-11-21) — ENGINEERING, tests passed: fixed the parser` */
export function historyLine(entry: HistoryEntry): string {
  const date =
    typeof entry.date === 'string'
      ? oneLine(entry.date)
      : Number.isNaN(entry.date.getTime())
        ? 'unknown date'
        : localTime(entry.date, 'YYYY-MM-DD');
  const status = oneLine(entry.status).toUpperCase() || 'UNKNOWN';
  const summary = oneLine(entry.summary);
  return `- Iteration ${entry.iteration} (${date}) — ${status}, tests ${entry.tests}${summary ? `: ${summary}` : ''}`;
}

/**
 * Appends one history line under `# History` (pure), after its last non-blank line; creates the
 * section at the end when missing. Every other byte of the document is kept as it was.
 */
export function appendHistory(markdown: string, entry: HistoryEntry): string {
  const nl = markdown.includes('\r\n') ? '\r\n' : '\n';
  const line = historyLine(entry);
  const lines = scanLines(markdown);
  const range = sectionRanges(lines).history;
  if (!range) {
    if (markdown.trim() === '') return `# History${nl}${nl}${line}${nl}`;
    const sep = markdown.endsWith('\n') ? nl : `${nl}${nl}`;
    return `${markdown}${sep}# History${nl}${nl}${line}${nl}`;
  }
  let last = -1;
  for (let i = range.to - 1; i >= range.from; i--) {
    if (lines[i]!.text.trim() !== '') {
      last = i;
      break;
    }
  }
  const at = last >= 0 ? lines[last]!.end : lines[range.heading]!.end;
  const insert = last >= 0 ? `${nl}${line}` : `${nl}${nl}${line}`;
  const rest = markdown.slice(at);
  // A history section that ends the file without a line break gets one after the new line.
  return `${markdown.slice(0, at)}${insert}${rest === '' ? nl : rest}`;
}
