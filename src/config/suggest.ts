/** Levenshtein distance, small inputs only (config keys). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate to `word`, or undefined when nothing is plausibly what was meant. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const exact = candidates.find((name) => name.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  // A key typed without its unit suffix (`max_runtime`, `iteration_timeout`): the one key it starts.
  const extended = candidates.filter(
    (name) => name.toLowerCase().startsWith(lower) && name.length > lower.length,
  );
  if (extended.length === 1) return extended[0];
  // Two neighbours swapped is one slip of the fingers (`stauts`), closer than any edit distance says.
  const swapped = candidates.filter((name) => isSwap(lower, name.toLowerCase()));
  if (swapped.length === 1) return swapped[0];
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = editDistance(lower, name.toLowerCase());
    if (best === undefined || d < best.d) best = { name, d };
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(2, Math.floor(word.length / 3));
  if (best.d <= allowed) return best.name;
  // A fragment of a real key (`max_runtime` for `max_runtime_seconds`): suggest it when unambiguous.
  const containing = candidates.filter((name) => {
    const n = name.toLowerCase();
    return n.includes(lower) || lower.includes(n);
  });
  return containing.length === 1 ? containing[0] : undefined;
}

/** `a` is `b` with two neighbouring characters swapped. */
function isSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const differ = [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
  const [i, j] = differ;
  return differ.length === 2 && j === (i as number) + 1 && a[i as number] === b[j] && a[j] === b[i as number];
}
