import type { Usage } from './types.ts';

/** USD per million tokens: input, output, cache write, cache read. */
export type Price = [input: number, output: number, cacheWrite: number, cacheRead: number];

// List prices of model families, used to estimate cost while an agent runs (to enforce
// max_cost_usd mid-iteration; the cost the CLI reports at the end replaces it) and by `ralph estimate`
// for a workspace without history.
const PRICES: [RegExp, Price][] = [
  [/claude.*opus/i, [15, 75, 18.75, 1.5]],
  [/claude.*sonnet/i, [3, 15, 3.75, 0.3]],
  [/claude.*haiku/i, [1, 5, 1.25, 0.1]],
  [/gpt-5.*mini/i, [0.25, 2, 0.25, 0.025]],
  [/gpt-5/i, [1.25, 10, 1.25, 0.125]],
  [/gpt-4\.1/i, [2, 8, 2, 0.5]],
  [/gemini.*flash/i, [0.3, 2.5, 0.3, 0.075]],
  [/gemini.*pro/i, [1.25, 10, 1.25, 0.31]],
];

/** The list price of `model` (USD per million tokens), or undefined for a model with no known price. */
export function priceOf(model: string | undefined): Price | undefined {
  return model ? PRICES.find(([re]) => re.test(model))?.[1] : undefined;
}

/** The estimated cost of `usage` on `model`, or undefined for a model with no known price. */
export function estimateCostUsd(model: string | undefined, usage: Usage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  const [input, output, cacheWrite, cacheRead] = price;
  return (
    (usage.inputTokens * input +
      usage.outputTokens * output +
      usage.cacheWriteTokens * cacheWrite +
      usage.cacheReadTokens * cacheRead) /
    1_000_000
  );
}
