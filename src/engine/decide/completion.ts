import type { RalphConfig } from '../../config/schema.ts';

/** Strips decoration an agent may put around a bare promise line: markdown emphasis, code ticks, a `<promise>` tag. */
function normalizeLine(line: string): string {
  let s = line.trim();
  const tag = /^<promise>\s*(.*?)\s*<\/promise>$/i.exec(s);
  if (tag) s = tag[1]!;
  s = s.replace(/^[*_`>#\s]+|[*_`\s]+$/g, '');
  return s.replace(/[.!]$/, '').trim();
}

/** The last non-empty line of `text`, or undefined. */
export function lastNonEmptyLine(text: string): string | undefined {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1);
    const line = text.slice(start + 1, end);
    if (line.trim().length > 0) return line;
    end = start < 0 ? 0 : start;
  }
  return undefined;
}

/**
 * The agent's output with an echo of its prompt removed (some CLIs print the prompt back): nothing
 * in the prompt — a promise, an example `<event>` tag — may count as if the agent had said it.
 */
export function withoutPromptEcho(output: string, prompt: string): string {
  const body = prompt.replace(/\r\n/g, '\n').trim();
  if (body.length === 0) return output;
  // Every echo goes (an agent may echo more than once), and the one a terminal (a pty-driven CLI)
  // prints with CRLF line ends too; the agent's own text is kept exactly as it was.
  let text = output.includes(body) ? output.split(body).join('') : output;
  const crlf = body.replace(/\n/g, '\r\n');
  if (crlf !== body && text.includes(crlf)) text = text.split(crlf).join('');
  return text;
}

/** The text of a `<promise>…</promise>` tag that ends `line` (snarktank/ralph's form), or undefined. */
export function trailingPromiseTag(line: string): string | undefined {
  const tag = /<promise>([^<>]*)<\/promise>\s*$/i.exec(line);
  return tag ? tag[1]!.trim() : undefined;
}

/**
 * Whether one line states the promise: the whole line (decoration aside), or a `<promise>` tag at
 * its end holding exactly the promise (`All stories pass. <promise>COMPLETE</promise>`). A promise
 * configured with its tags (`<promise>COMPLETE</promise>`) is matched by its text inside them too.
 */
export function linePromises(line: string, promise: string): boolean {
  if (line.trim() === promise.trim() || normalizeLine(line) === normalizeLine(promise)) return true;
  const said = trailingPromiseTag(line);
  if (said === undefined || said.length === 0) return false;
  return said === (trailingPromiseTag(promise.trim()) ?? promise.trim());
}

/**
 * Solo completion: the promise counts only as the last non-empty line of the agent's final output,
 * or as a `<promise>` tag at that line's end. Text that merely repeats the prompt (an echo) is
 * removed first, so a prompt that mentions or ends with the promise never completes the loop by
 * being echoed; prose mentioning it is not a match.
 */
export function promiseFulfilled(finalOutput: string, promise: string, prompt: string): boolean {
  if (promise.trim().length === 0) return false;
  const last = lastNonEmptyLine(withoutPromptEcho(finalOutput, prompt));
  if (last === undefined) return false;
  return linePromises(last, promise);
}

/**
 * Where the promise stands when it is in the output but not its last non-empty line (an echo of the
 * prompt removed first): 1-based line numbers among the non-empty lines; undefined otherwise.
 */
export function misplacedPromise(
  finalOutput: string,
  promise: string,
  prompt: string,
): { line: number; lines: number } | undefined {
  if (promise.trim().length === 0) return undefined;
  const lines = withoutPromptEcho(finalOutput, prompt)
    .split('\n')
    .filter((l) => l.trim().length > 0);
  const at = lines.findLastIndex((l) => linePromises(l, promise));
  if (at < 0 || at === lines.length - 1) return undefined;
  return { line: at + 1, lines: lines.length };
}

/** The checklist's completion condition (seed 003), or undefined without `completion.checklist`. */
export function checklistCondition(config: RalphConfig): 'all_tasks' | 'milestone' | 'promise' | undefined {
  if (!config.completion.checklist) return undefined;
  return config.completion.condition ?? 'all_tasks';
}

/** With a checklist, only the condition chosen completes: an agent saying "done" is not enough. */
export function outputPromiseCounts(condition: ReturnType<typeof checklistCondition>): boolean {
  return condition === undefined || condition === 'promise';
}
