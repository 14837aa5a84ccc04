import {
  closeSync,
  type Dirent,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { errorCode, type HealthResult } from './health-checks.ts';

interface SpecsProblem {
  path: string;
  code: string;
  what: string;
}

// Bounds the recursive walk so the check stays cheap before every iteration.
const SPECS_ENTRY_BUDGET = 2000;

function readOneByte(path: string): void {
  const fd = openSync(path, 'r');
  try {
    readSync(fd, Buffer.alloc(1), 0, 1, 0);
  } finally {
    closeSync(fd);
  }
}

function symlinkWhat(code: string): string {
  return code === 'ENOENT'
    ? 'is a dangling symlink'
    : code === 'ELOOP'
      ? 'is a symlink loop'
      : 'cannot be read';
}

/** Lists `dir` and opens every regular file under it; symlinked directories are listed, not walked. */
function walkSpecs(dir: string, budget: { left: number; files: number }): SpecsProblem | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    return { path: dir, code: errorCode(error), what: 'cannot be listed' };
  }
  for (const entry of entries) {
    if (budget.left-- <= 0) return undefined;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const problem = walkSpecs(path, budget);
      if (problem) return problem;
      continue;
    }
    try {
      const st = statSync(path);
      if (st.isFile()) {
        readOneByte(path);
        budget.files++;
      } else if (st.isDirectory()) {
        readdirSync(path);
      }
      // FIFOs, sockets and devices are left alone: opening a FIFO would block.
    } catch (error) {
      const code = errorCode(error);
      return { path, code, what: entry.isSymbolicLink() ? symlinkWhat(code) : 'cannot be read' };
    }
  }
  return undefined;
}

function specsProblem(root: string, budget: { left: number; files: number }): SpecsProblem | undefined {
  let st: Stats;
  try {
    st = lstatSync(root);
  } catch (error) {
    const code = errorCode(error);
    return { path: root, code, what: code === 'ENOENT' ? 'is missing' : 'cannot be read' };
  }
  if (st.isSymbolicLink()) {
    try {
      st = statSync(root);
    } catch (error) {
      const code = errorCode(error);
      return { path: root, code, what: symlinkWhat(code) };
    }
  }
  if (!st.isDirectory()) return { path: root, code: 'ENOTDIR', what: 'is not a directory' };
  return walkSpecs(root, budget);
}

/**
 * The specs directory and the files in it can be read. Judged by actually listing and opening
 * (not by permission bits, which root ignores).
 */
export function checkSpecsReadable(dir: string): HealthResult {
  const root = resolve(dir);
  const budget = { left: SPECS_ENTRY_BUDGET, files: 0 };
  const problem = specsProblem(root, budget);
  if (problem) {
    const where = problem.path === root ? '' : ` in ${root}`;
    return {
      check: 'specs',
      level: 'fatal',
      message:
        `cannot read specs: ${problem.path} ${problem.what} (${problem.code})${where}; ` +
        'restore specs/ (or fix its permissions), then run ralph again',
    };
  }
  const n = budget.files;
  return { check: 'specs', level: 'ok', message: `${root} readable (${n} ${n === 1 ? 'file' : 'files'})` };
}
