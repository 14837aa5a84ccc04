import { createHash } from 'node:crypto';

const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const TIME_UNIT = '(?:ms|s|sec|secs|seconds?|m|min|µs|μs|us|ns)';
/** A duration at the end of a test line: `(12ms)`, `0.00s`, `[ 1.2 s ]`, `(retry x2)`, `# time=3.1ms`. */
const TRAILING_NOISE = new RegExp(
  `(?:(?:\\s+|\\s*[([]\\s*)\\d+(?:\\.\\d+)?\\s*${TIME_UNIT}\\s*[)\\]]?|\\s*\\(retry x\\d+\\)|\\s+#\\s*time=\\S*)\\s*$`,
  'i',
);
const DURATION = new RegExp(`\\b\\d+(?:\\.\\d+)?\\s?${TIME_UNIT}\\b`, 'gi');
/** Per-run temporary directories (`/tmp/vitest-abc123`, macOS `/var/folders/…/T/x`, Windows `…\Temp\x`). */
const TEMP_PATH =
  /(?:\/private)?\/(?:tmp|var\/folders\/[^\s/]+\/[^\s/]+\/T)\/[^\s/:'"]+|[A-Za-z]:\\[^\s]*?\\Temp\\[^\s\\:'"]+/g;
/** `file.ts:12:5` → `file.ts`: line numbers move whenever code is edited. */
const LINE_COL = /(\.[A-Za-z]\w*):\d+(?::\d+)?/g;
const TIMESTAMP =
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}:\d{2}\b/g;

/** Lines that report a passing test: never failure markers, whatever the test is called. */
const PASSING_LINE = /^\s*(?:[✓√✔]|ok\b|PASS(?:ED)?\b|--- PASS\b|test \S+ \.\.\. ok\b)/;

/** Lines that say something failed, even when the failing tests cannot be named. */
const FAILURE_MARKERS: readonly RegExp[] = [
  /^\s*(?:FAIL|FAILED|FAILURES?|ERRORS?)\b/,
  /^\s*not ok\b/,
  /^\s*--- FAIL\b/,
  /\.\.\. FAILED\b/,
  /^\s*(?:[×✗✕✖❌]|●(?!\s*Console\b))/,
  /\b[1-9]\d*\s+(?:failed|failing|failures?|errors?)\b/i,
  /^\s*(?:#|ℹ)\s*fail\s+[1-9]/, // TAP / node:test summaries
  /\btest result: FAILED\b/,
  /^=+\s*(?:FAILURES|ERRORS)\s*=+/,
  /\bpanicked at\b/,
  /^\s*Traceback \(most recent call last\)/,
  /^\s*(?:[A-Z]\w*)?(?:Error|Exception)\b:/,
  /\bnpm ERR!/,
  /^\s*failures:\s*$/,
];

/** TAP todo/skip directives: `not ok` that is not a failure. */
const TAP_DIRECTIVE = /^\s*not ok\b.*#\s*(?:TODO|SKIP)\b/i;

/** How runners name a failing test: each pattern's first group is the test's identifier. */
const FAILING_TEST: readonly RegExp[] = [
  /^--- FAIL:\s+(\S+)/, // go test
  /^test\s+(\S+)\s+\.\.\.\s+FAILED\b/, // cargo test
  /^not ok\b\s*\d*\s*(?:-\s*)?(.*)$/, // TAP, node:test
  /^FAILED\s+([^(\s].*?)(?:\s+-\s.*)?$/, // pytest short summary (not unittest's "FAILED (failures=1)")
  /^(\S+::\S+)\s+FAILED\b/, // pytest -v
  /^ERROR:?\s+(\S+::\S+|\w+ \([\w.]+\))/, // pytest / unittest errors
  /^FAIL\b:?\s+(.+)$/, // vitest / jest files and tests, go packages, unittest "FAIL: test (mod.C)"
  /^[×✗✕✖❌]\s*(.+)$/, // vitest / jest / node spec reporter
  /^●\s+(?!Console\b)(.+)$/, // jest failure details (not its console output)
];

function clean(text: string): string {
  return text.replace(ANSI, '').replace(/\r/g, '');
}

function normalizeId(raw: string): string {
  let id = raw.replace(TEMP_PATH, '<tmp>').replace(LINE_COL, '$1').replace(/\s+/g, ' ').trim();
  for (let prev = ''; prev !== id; ) {
    prev = id;
    id = id.replace(TRAILING_NOISE, '').trim();
  }
  return id;
}

function failingTests(lines: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const line of lines) {
    const text = line.trim();
    if (TAP_DIRECTIVE.test(text)) continue;
    for (const pattern of FAILING_TEST) {
      const m = pattern.exec(text);
      if (!m) continue;
      const id = normalizeId(m[1] ?? '');
      // node's spec reporter heads its list with "✖ failing tests:".
      if (id !== '' && !/^failing tests:?$/i.test(id)) ids.add(id);
      break;
    }
  }
  return [...ids].sort();
}

function hasFailureMarker(lines: readonly string[]): boolean {
  return lines.some(
    (l) => !PASSING_LINE.test(l) && !TAP_DIRECTIVE.test(l) && FAILURE_MARKERS.some((m) => m.test(l)),
  );
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The last 20 meaningful lines, without what changes from run to run (times, paths, line numbers). */
function normalizedTail(lines: readonly string[]): string {
  return lines
    .filter((l) => !/^\s*(?:Duration|Time|Start(?:ed)? at|real|user|sys)\b|^Ran \d+ tests? in\b/i.test(l))
    .map((l) =>
      l
        .replace(TIMESTAMP, '<time>')
        .replace(DURATION, '<dur>')
        .replace(TEMP_PATH, '<tmp>')
        .replace(LINE_COL, '$1')
        .replace(/\b0x[0-9a-f]+\b/gi, '<addr>')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((l) => l !== '')
    .slice(-20)
    .join('\n');
}

/** Readable signatures are capped; past this length the list is summarized by count and hash. */
const MAX_SIGNATURE = 2000;

/**
 * A stable signature of WHICH tests fail (pure), for stuck detection: the failing test identifiers
 * from common runners (vitest, jest, node:test/TAP, pytest, unittest, go, cargo, generic `FAIL:`),
 * normalised (no ANSI, durations, line numbers or temp paths), sorted and joined by newlines. When
 * failures are reported but no test can be named, `hash:<hex>` of the normalised last 20 lines.
 * Null when nothing failed is recognisable — unless `assumeFailed` (the command exited non-zero),
 * which always yields a signature.
 */
export function failingTestSignature(
  testOutput: string,
  opts: { assumeFailed?: boolean } = {},
): string | null {
  const lines = clean(testOutput).split('\n');
  const ids = failingTests(lines);
  if (ids.length > 0) {
    const joined = ids.join('\n');
    return joined.length <= MAX_SIGNATURE ? joined : `${ids.length} failing tests #${hash(joined)}`;
  }
  if (!opts.assumeFailed && !hasFailureMarker(lines)) return null;
  return `hash:${hash(normalizedTail(lines))}`;
}
