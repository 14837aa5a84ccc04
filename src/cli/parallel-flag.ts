import { UsageError } from '../errors.ts';

/** The worker count of `--parallel N`, checked. */
export function parallelFlag(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new UsageError(`--parallel expects a number of workers from 1 to 64, got "${value}"`);
  return n;
}
