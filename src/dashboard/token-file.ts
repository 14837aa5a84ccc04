import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { linkToNowhere, RalphError, UsageError, whyUnreadable } from '../errors.ts';
import { newToken } from './security.ts';

/** What a token may be: it travels in a URL, a cookie and a header, so no spaces, `;` or `,`. */
const TOKEN_SHAPE = /^[A-Za-z0-9._~+/=-]{16,512}$/;

/**
 * The dashboard's token kept in a file, so it survives restarts (`ralph dashboard --token-file`;
 * Prometheus reads the same file as `credentials_file`). A missing file is created (mode 0600,
 * exclusively: two starts at once agree on one token) with a fresh random token; an existing one
 * is read as it is, trimmed, and must look like a token.
 */
export function tokenFromFile(path: string, created = false): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new RalphError(
        'fs_error',
        `cannot read the token file ${path}: ${whyUnreadable(path, error)}: point --token-file at a readable regular file`,
        { cause: error },
      );
    // Missing after an exclusive create said it exists: a symbolic link to nowhere.
    if (created) throw danglingLink(path);
    return createTokenFile(path);
  }
  const token = text.trim();
  if (!TOKEN_SHAPE.test(token))
    throw new UsageError(
      `the token file ${path} holds no usable token: put one line of 16 to 512 characters from A-Z a-z 0-9 . _ ~ + / = - in it (or delete the file and Ralph writes a random one)`,
    );
  return token;
}

function danglingLink(path: string): RalphError {
  return new UsageError(
    `the token file ${path} is ${linkToNowhere(path) ?? 'gone'}: point --token-file at a regular file, or remove the link and Ralph writes a random token there`,
  );
}

function createTokenFile(path: string): string {
  const token = newToken();
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    // Another start created it first: its token is the one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return tokenFromFile(path, true);
    throw new RalphError('fs_error', `cannot create the token file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return token;
}
