import { processTable } from '../../src/process/pids.ts';

/**
 * A start time no live process has, in the format of the process table the tests run (/proc's
 * clock ticks, or ps's `epoch:<seconds>` in the ps-table project): a lock naming a live pid with it
 * was left by a process whose pid was reused.
 */
export const NOT_ITS_START_TIME = processTable().kind === 'ps' ? 'epoch:1' : '1';
