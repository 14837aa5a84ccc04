import { headings, scanLines, stripComments, titleRemainder } from './markdown-sections.ts';

/** The mode an iteration reports in its Status section. */
export type ReportStatus = 'ENGINEERING' | 'CREATIVE' | 'BLOCKED';

/** What Ralph found in the agent's report (`loop/last_output.md`). */
export interface ReportCheck {
  /** ENGINEERING, CREATIVE or BLOCKED from the Status section (or a `Status: X` line); null when absent. */
  status: ReportStatus | null;
  /** Required sections found with content, in the order required. */
  present: string[];
  /** Required sections missing or empty, in the order required. */
  missing: string[];
}

/** `Status: X`, `**Iteration:** 3` — a field line (not a list item) whose label is the whole name. */
const LABEL =
  /^ {0,3}(?![-*+][ \t]|\d+[.)][ \t])(?:\*\*|__)?([^:*_\n]{1,60}?)(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?(.*)$/;
const STATUS = /\b(ENGINEERING|CREATIVE|BLOCKED)\b/i;

function statusIn(text: string): ReportStatus | null {
  const m = STATUS.exec(text);
  return m ? (m[1]!.toUpperCase() as ReportStatus) : null;
}

/**
 * Checks a report against its required sections (pure). A section is present when a heading of
 * any level starts with its name (case-insensitive, whole words: "Tests" matches "Tests run",
 * "Iteration" matches "Iteration 3 — 2026-11-21") and has content: the rest of the heading or the
 * text under it (subsections included; HTML comments do not count). A field line whose label is
 * exactly the name (`Status: ENGINEERING`, `**Iteration:** 3`) also counts.
 */
export function parseReport(markdown: string, requiredSections: readonly string[]): ReportCheck {
  const lines = scanLines(markdown);
  const hs = headings(lines);
  const visible = stripComments(lines.map((l) => l.text).join('\n')).split('\n');
  const headingLines = new Set(hs.map((h) => h.line));

  /** Content of each heading that starts with `name`, in document order. */
  const headingContents = (name: string): string[] =>
    hs.flatMap((h, i) => {
      const rest = titleRemainder(h.title, name);
      if (rest === undefined) return [];
      const next = hs.findIndex((o, j) => j > i && o.level <= h.level);
      const body = visible.slice(h.line + 1, next < 0 ? lines.length : hs[next]!.line).join('\n');
      return [stripComments(rest).trim() ? `${rest}\n${body}` : body];
    });

  /** Values of field lines labelled exactly `name`. */
  const fieldValues = (name: string): string[] =>
    lines.flatMap((l, i) => {
      if (l.fenced || headingLines.has(i)) return [];
      const m = LABEL.exec(visible[i]!);
      if (!m || titleRemainder(m[1]!, name) !== '') return [];
      const value = m[2]!.replace(/[*_`]/g, '').trim();
      return value ? [value] : [];
    });

  const present: string[] = [];
  const missing: string[] = [];
  for (const name of requiredSections) {
    const found = headingContents(name).some((c) => c.trim() !== '') || fieldValues(name).length > 0;
    (found ? present : missing).push(name);
  }

  let status: ReportStatus | null = null;
  for (const content of [...headingContents('Status'), ...fieldValues('Status')]) {
    status = statusIn(content);
    if (status) break;
  }
  return { status, present, missing };
}

/**
 * What the next iteration is told about an incomplete report (one line; `check` null: the file is
 * missing or was not rewritten), or undefined when the report is complete.
 */
export function reportProblem(reportFile: string, check: ReportCheck | null): string | undefined {
  if (check === null) return `${reportFile} was not written; write it with every required section`;
  if (check.missing.length === 0) return undefined;
  return `${reportFile} is missing required section(s): ${check.missing.join(', ')}; write every section each iteration`;
}
