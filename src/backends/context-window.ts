/** Context window sizes of model families, for the context-% figure. Unknown models report n/a. */
const WINDOWS: [RegExp, number][] = [
  // Claude Code reports a 1M-token window for the 5.x models.
  [/claude-(opus|sonnet)-5/i, 1_000_000],
  [/claude-(sonnet-4|opus-4|haiku-4|3-7|3-5)/i, 200_000],
  [/claude/i, 200_000],
  [/gpt-5/i, 400_000],
  [/gpt-4\.1/i, 1_047_576],
  [/gpt-4o|o3|o4-mini/i, 128_000],
  [/gemini-(2|3)/i, 1_048_576],
  [/qwen3-coder/i, 262_144],
];

export function contextWindowFor(model: string | undefined): number | undefined {
  if (!model) return undefined;
  return WINDOWS.find(([re]) => re.test(model))?.[1];
}
