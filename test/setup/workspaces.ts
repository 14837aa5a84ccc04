import { afterAll } from 'vitest';
import { cleanupWorkspaces } from '../helpers/workspace.ts';

// One cleanup for every test file: workspaces made outside a test go when the file's tests are done.
afterAll(cleanupWorkspaces);
