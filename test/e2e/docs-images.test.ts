// The pictures in docs/images/ are made here. `npm run docs:images` (RALPH_UPDATE_DOCS_IMAGES=1)

// writes them; otherwise the TUI frame rendered now must show the committed picture's text, and
// the dashboard screenshot must be taken, a valid PNG of the viewport's size that is not blank.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { CHROMIUM, openDashboard } from '../helpers/dashboard.ts';
import { DOCS_IMAGES, UPDATE_DOCS_IMAGES } from '../helpers/docs-images.ts';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { readPng } from '../helpers/png.ts';
import { type ScreenCell, startRalphScreen } from '../helpers/screen.ts';
import {
  type FrameRule,
  frameText,
  normaliseFrame,
  svgFrameText,
  terminalSvg,
} from '../helpers/terminal-svg.ts';
import { elapse } from '../helpers/wait.ts';
import { makeWorkspace, type RalphProcess, ROOT, runRalph, waitFor } from '../helpers/workspace.ts';

const UPDATE = UPDATE_DOCS_IMAGES;
const IMAGES = DOCS_IMAGES;
const STALE = 'run `npm run docs:images` and commit docs/images/';
const SIZE = { cols: 100, rows: 30 };
const VIEWPORT = { width: 1280, height: 800 };

/**
 * The project the pictures show (test/fixtures/docs-project), committed with Ralph's runtime files
 * ignored, as `ralph init` leaves it.
 */
function docsProject(): string {
  const fixture = join(ROOT, 'test', 'fixtures', 'docs-project');
  const files = ['PROMPT.md', 'specs/health.md', 'ralph.yml', 'fake-agent.yml'];
  return makeGitWorkspace(
    {
      ...Object.fromEntries(files.map((f) => [f, readFileSync(join(fixture, f), 'utf8')])),
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    },
    'acme-api',
  );
}

/** Fixed values for what changes from run to run: the run id, commits, the clock, each iteration's duration. */
function frameRules(): FrameRule[] {
  const commits = new Map<string, string>();
  const fixedCommits = ['4e1f0a2', '9b7c3d1', 'c05e8f4', '71a2d9b', 'e3b6c40'];
  const span = /under 1s|\d+[smhd](?:\d\d[smh])?/.source;
  const durations = ['48s', '1m53s', '37s', '21s', '2m04s', '35s', '14s'];
  return [
    { pattern: /\d{8}-\d{6}-[0-9a-f]{6}/, replace: () => '20260314-091502-7c1d4e' },
    {
      pattern: /(?<=committed )[0-9a-f]{7}/,
      replace: ([hash]) => {
        if (!commits.has(hash)) commits.set(hash, fixedCommits[commits.size] ?? hash);
        return commits.get(hash) as string;
      },
    },
    // The runtime's share of its limit stays 0% unless a loaded machine takes over a minute.
    { pattern: /(?<=runtime of \S+ )[░▓]+ \d+%/, replace: () => '░░░░░░░░ 0%' },
    // The header's clock ends its first row; an iteration's duration follows its verdict.
    { pattern: new RegExp(`(?<=^ralph .* · )(?:${span})(?= *$)`), replace: () => '4m12s' },
    {
      pattern: new RegExp(`(?<=#(\\d+) \\S+ \\S+ )(?:${span})`),
      replace: (m) => durations[Number(m[1]) - 1] ?? (m[0] as string),
    },
  ];
}

/** The frame once it stops changing (a frame can reach the terminal in more than one write). */
async function settledFrame(cells: () => Promise<ScreenCell[][]>): Promise<ScreenCell[][]> {
  let last = '';
  for (let i = 0; i < 50; i++) {
    const frame = normaliseFrame(await cells(), frameRules());
    const text = frameText(frame).join('\n');
    if (text === last) return frame;
    last = text;
    await elapse(300, 'a frame unchanged this long has settled');
  }
  throw new Error(`the TUI kept changing:\n${last}`);
}

const running: RalphProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.done;
  }
});

describe('docs/images', () => {
  it('tui.svg: ralph run on a terminal, three hats at their fifth iteration', async () => {
    const dir = docsProject();
    const hold = makeWorkspace();
    // Colours as on a person's terminal (the screen helper's CI=false turns chalk's off).
    const env = { DOCS_HOLD: hold, FORCE_COLOR: '1', NO_COLOR: undefined };
    const t = await startRalphScreen(['run'], dir, env, SIZE);
    try {
      await t.waitForScreen(/running the tests\.[^\n]*\n→ Bash/, 30_000);
      await waitFor(() => existsSync(join(hold, 'shown')), 10_000, 'the fifth iteration to wait');
      const frame = await settledFrame(() => t.cells());
      const svg = terminalSvg(frame, SIZE, {
        title: 'ralph run',
        alt: "Ralph's terminal UI: a loop of three hats at its fifth iteration, with the agent's output, the events and the iterations so far",
      });
      // The picture shows exactly the frame's text.
      expect(svgFrameText(svg)).toEqual(frameText(frame));
      const file = join(IMAGES, 'tui.svg');
      if (UPDATE) writeFileSync(file, svg);
      else {
        expect(existsSync(file), `docs/images/tui.svg is missing: ${STALE}`).toBe(true);
        expect(frameText(frame), `the TUI no longer looks like docs/images/tui.svg: ${STALE}`).toEqual(
          svgFrameText(readFileSync(file, 'utf8')),
        );
      }
    } finally {
      writeFileSync(join(hold, 'go'), '');
    }
    expect((await t.exited).exitCode).toBe(0);
  }, 90_000);

  it.skipIf(!existsSync(CHROMIUM))(
    'dashboard.png: the page of a finished seven-iteration run, in Chromium',
    async () => {
      const env = { XDG_STATE_HOME: makeWorkspace() };
      const dir = docsProject();
      expect((await runRalph(['run', '--no-tui'], dir, env)).code).toBe(0);
      const { url } = await openDashboard({ track: (p) => running.push(p), env });
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
        await page.goto(url);
        await page.getByRole('link', { name: dir, exact: true }).click();
        await page.getByText('Both tasks are done and reviewed.').first().waitFor();
        await shoot(page, 'dashboard.png');
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});

/** A screenshot of the viewport, checked to be a PNG of its size that shows something; kept with UPDATE. */
async function shoot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot();
  const seen = readPng(png);
  expect(seen).toMatchObject(VIEWPORT);
  expect(seen.colours, `${name} looks blank`).toBeGreaterThan(8);
  expect(png.length).toBeLessThan(300_000);
  if (UPDATE) writeFileSync(join(IMAGES, name), png);
}
