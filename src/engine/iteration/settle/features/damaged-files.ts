import { damagedFilesFeedback } from '../../../gates/own-files.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/** Ralph's own files the agent damaged (moved aside before settling): the turn is refused and fails. */
export const damagedFiles: SettlementFeature = {
  name: 'damaged-files',
  refuse: ({ phase }) => (phase.damaged.length > 0 ? { carryRulesStart: true } : undefined),
  feedback: ({ phase }) => (phase.damaged.length > 0 ? damagedFilesFeedback(phase.damaged) : undefined),
};
