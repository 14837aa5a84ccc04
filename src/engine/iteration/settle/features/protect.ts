import { tamperedFeedback, tamperedStop } from '../../../gates/protect-gate.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/** gates.protect: a changed protected file refuses the turn (verdict gate_tampered); in a row, it stops. */
export const protect: SettlementFeature = {
  name: 'protect',
  refuse: ({ touched }) => (touched.length > 0 ? { tampered: touched, carryRulesStart: true } : undefined),
  feedback: (_, verdict) => (verdict.tampered.length > 0 ? tamperedFeedback(verdict.tampered) : undefined),
  stop: (ctx, { plan }) => tamperedStop(ctx, plan.verdict.tampered),
};

/**
 * Git's control files (commondir, info/attributes, alternates…), already put back: a change is
 * refused like a protected file. The rules, judging from disk, have their say first (a denied file
 * hidden by info/exclude is their violation).
 */
export const controlFiles: SettlementFeature = {
  name: 'control-files',
  refuse: ({ agentOk, ruled, control }) =>
    agentOk && !ruled && control.length > 0 ? { tampered: control, carryRulesStart: true } : undefined,
};
