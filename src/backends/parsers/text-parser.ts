import type { AgentEvent, OutputParser } from '../types.ts';

/** The end of the output kept for the final answer (characters): where the completion promise is. */
const FINAL_CHARS = 256 * 1024;
/** A line longer than this is cut (as the supervisor's line splitter cuts one). */
const MAX_LINE = 8 * 1024 * 1024;

/**
 * Parser for agents that print plain text: every line is text, the final answer is its end. Read
 * a line at a time (`parseLine`) or a chunk at a time (`parseChunk`, the agent runner's choice):
 * then one event carries all of a chunk's complete lines, so a chatty agent costs per chunk, not
 * per line. Carriage returns before a newline are dropped either way.
 */
export function createTextParser(): OutputParser {
  /** The output's last pieces of complete lines (newline-joined), at least FINAL_CHARS of them. */
  const recent: string[] = [];
  let recentChars = 0;
  /** The line the last chunk left unterminated. */
  let partial = '';
  const keep = (text: string) => {
    recent.push(text);
    recentChars += text.length + 1;
    while (recent.length > 1 && recentChars - (recent[0]!.length + 1) >= FINAL_CHARS)
      recentChars -= recent.shift()!.length + 1;
  };
  const text = (lines: string): AgentEvent[] => {
    const clean = lines.includes('\r') ? lines.replace(/\r(?=\n|$)/g, '') : lines;
    keep(clean);
    return [{ type: 'text', text: clean }];
  };
  return {
    parseLine: (line) => text(line),
    parseChunk(chunk) {
      const nl = chunk.lastIndexOf('\n');
      if (nl === -1) {
        if (partial.length < MAX_LINE) partial = (partial + chunk).slice(0, MAX_LINE);
        return [];
      }
      const lines = `${partial}${chunk.slice(0, nl)}`;
      partial = chunk.slice(nl + 1);
      return text(lines);
    },
    flush() {
      if (partial === '') return [];
      const last = partial;
      partial = '';
      return text(last);
    },
    finalText() {
      const all = recent.join('\n');
      if (all.length <= FINAL_CHARS) return all;
      // From a line start: the promise is judged on whole lines.
      const from = all.indexOf('\n', all.length - FINAL_CHARS);
      return from === -1 ? all.slice(-FINAL_CHARS) : all.slice(from + 1);
    },
  };
}
