import { describe, expect, it } from 'vitest';
import { projectRootOf } from '../../../src/state/paths.ts';

/** A file system of these paths (and nothing else). */
const fs =
  (...paths: string[]) =>
  (p: string) =>
    paths.includes(p);

describe('projectRootOf', () => {
  it('is the directory itself when it has ralph.yml or .ralph/', () => {
    expect(projectRootOf('/w', fs('/w/ralph.yml'))).toBe('/w');
    expect(projectRootOf('/w', fs('/w/.ralph'))).toBe('/w');
  });

  it('finds the nearest parent with one, as git finds its repository', () => {
    expect(projectRootOf('/w/src/deep', fs('/w/ralph.yml', '/w/.git'))).toBe('/w');
    expect(projectRootOf('/w/pkg/a', fs('/w/ralph.yml', '/w/pkg/.ralph', '/w/.git'))).toBe('/w/pkg');
  });

  it('looks no higher than the repository top, and gives up at /', () => {
    expect(
      projectRootOf('/home/me/repo/src', fs('/home/me/ralph.yml', '/home/me/repo/.git')),
    ).toBeUndefined();
    expect(projectRootOf('/a/b', fs())).toBeUndefined();
    // Outside any repository a project above does not count (a stray ~/.ralph claims nothing).
    expect(projectRootOf('/home/me/notes', fs('/home/me/.ralph'))).toBeUndefined();
    expect(projectRootOf('/home/me', fs('/home/me/.ralph'))).toBe('/home/me');
  });
});
