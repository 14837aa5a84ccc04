import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { RalphError } from '../errors.ts';
import { TEMPLATES_DIR } from '../paths-package.ts';
import { writeFileInPlace } from '../state/io/file-writes.ts';
import { presetSource } from './presets.ts';

/** A tool a template's check needs, and how a user gets it. */
export interface RequiredTool {
  command: string;
  install: string;
}

/** A starter project written by `ralph new <template> DIR`. */
export interface ProjectTemplate {
  name: string;
  description: string;
  /**
   * Files written into DIR (relative paths), stored in templates/<name>/ under `dot-…` names like
   * the presets' (see `presetSource`); `__module__` in a path becomes the Python module name.
   */
  files: string[];
  /** Executables the check (the written `gates.tests.command`) needs. */
  tools: RequiredTool[];
  /** A directory the check needs that Ralph does not create (it would need the network), and how to get it. */
  installed?: { path: string; how: string };
  /** What to do after `ralph new`. */
  next: string;
}

const LOOP_FILES = ['ralph.yml', 'PROMPT.md', 'README.md', '.gitignore'];

export const TEMPLATES: readonly ProjectTemplate[] = [
  {
    name: 'ts-lib',
    description:
      'TypeScript library: package.json, src/, test/ (vitest), strict tsc; gates: npm test, vitest related',
    files: [
      ...LOOP_FILES,
      'package.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'src/index.ts',
      'test/index.test.ts',
    ],
    tools: [
      { command: 'npm', install: 'install Node.js 20.19 or newer, which brings npm (https://nodejs.org)' },
    ],
    installed: {
      path: 'node_modules',
      how: 'run `npm install` in the project (it fetches typescript and vitest from the npm registry), then `npm test`',
    },
    next: 'npm install (unless node_modules is there), describe the task in PROMPT.md, check cli.backend in ralph.yml, then `ralph run`',
  },
  {
    name: 'py-pkg',
    description:
      'Python package: pyproject.toml, src layout, tests/ (unittest, pytest runs them too); gates: unittest, {tests}',
    files: [
      ...LOOP_FILES,
      'pyproject.toml',
      'src/__module__/__init__.py',
      'src/__module__/words.py',
      'tests/__init__.py',
      'tests/test_words.py',
    ],
    tools: [
      {
        command: 'python3',
        install:
          'install Python 3.9 or newer (apt install python3, brew install python, https://www.python.org)',
      },
    ],
    next: 'describe the task in PROMPT.md, check cli.backend in ralph.yml, then `ralph run`',
  },
];

/** The template of that name, or a `usage` error that lists them. */
export function findTemplate(name: string): ProjectTemplate {
  const template = TEMPLATES.find((t) => t.name === name);
  if (!template) throw new RalphError('usage', `unknown template "${name}"; available:\n${templateList()}`);
  return template;
}

/** One line per template, as `ralph new --list` prints them. */
export function templateList(): string {
  return TEMPLATES.map((t) => `  ${t.name.padEnd(8)} ${t.description}\n`).join('');
}

/** The names a project takes from its directory: a package name and a Python module name. */
export function projectNames(dir: string): { name: string; module: string } {
  const name =
    basename(resolve(dir))
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '') || 'project';
  const module = name.replace(/[^a-z0-9_]/g, '_');
  return { name, module: /^[0-9]/.test(module) ? `_${module}` : module };
}

/**
 * Writes a template into `dir` (created when missing). A non-empty `dir` is refused before anything
 * is written unless `force` is set; then files that exist are kept, never overwritten, and listed.
 */
export function writeTemplate(
  dir: string,
  name: string,
  opts: { force?: boolean } = {},
): { written: string[]; kept: string[] } {
  const template = findTemplate(name);
  if (existsSync(dir) && readdirSync(dir).length > 0 && !opts.force)
    throw new RalphError(
      'init_exists',
      `${dir} is not empty; choose a new directory, or pass --force to add the template's files to it (existing files are kept)`,
    );
  const names = projectNames(dir);
  const fill = (text: string) =>
    text.replaceAll('{{name}}', names.name).replaceAll('{{module}}', names.module);
  const written: string[] = [];
  const kept: string[] = [];
  for (const file of template.files) {
    const path = file.replaceAll('__module__', names.module);
    const target = join(dir, path);
    if (existsSync(target)) {
      kept.push(path);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileInPlace(
      target,
      fill(readFileSync(join(TEMPLATES_DIR, template.name, presetSource(file)), 'utf8')),
    );
    written.push(path);
  }
  return { written, kept };
}
