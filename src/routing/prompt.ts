/** Everything the prompt of one iteration is built from (pure data). */
export interface PromptInput {
  /** The user's prompt (PROMPT.md, -p text). */
  base: string;
  completionPromise: string;
  /** Hat instructions; when null the DONE section is included (solo mode). */
  hatInstructions: string | null;
}

/**
 * Assembles the prompt of one iteration. Ralph's own text is kept to a few lines: every byte is paid
 * for on every iteration.
 */
export function assemblePrompt(input: PromptInput): string {
  const parts = [input.base.trimEnd()];
  if (input.hatInstructions !== null) parts.push(input.hatInstructions.trimEnd());
  else {
    parts.push(
      [
        '## DONE',
        'You run in a loop; each iteration is a fresh session. Do one piece of work, leave progress in files.',
        `When the whole task is complete and verified, end your final message with a line containing only ${input.completionPromise}`,
      ].join('\n'),
    );
  }
  return `${parts.join('\n\n')}\n`;
}
