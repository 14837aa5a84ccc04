// Where the pictures the tests take go. `npm run docs:images` sets RALPH_UPDATE_DOCS_IMAGES=1 and
// runs the tests that take them: then they land in docs/images/ (and are committed); otherwise in
// test-artifacts/ (ignored by git), so a test run leaves the checkout as it was.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './workspace.ts';

/** True under `npm run docs:images`: the tests write the docs' pictures. */
export const UPDATE_DOCS_IMAGES = process.env.RALPH_UPDATE_DOCS_IMAGES === '1';

/** docs/images/, where the README and the docs find the pictures. */
export const DOCS_IMAGES = join(ROOT, 'docs', 'images');

/** The path a test saves the screenshot `name` (e.g. `dashboard-run.png`) to; its folder exists. */
export function screenshotPath(name: string): string {
  const dir = UPDATE_DOCS_IMAGES ? DOCS_IMAGES : join(ROOT, 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
