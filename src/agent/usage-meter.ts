import { contextWindowFor } from '../backends/context-window.ts';
import { estimateCostUsd } from '../backends/pricing.ts';
import { type AgentEvent, emptyUsage, totalTokens, type Usage } from '../backends/types.ts';
import type { TokenTotals } from '../state/iteration-record-shape.ts';

/**
 * Accumulates one iteration's token usage and cost from streamed agent events. Per-call usage is
 * keyed by message id (CLIs repeat a message's usage once per content block); a final result's
 * usage, when present, is authoritative.
 */
export class UsageMeter {
  private perCall = new Map<string, Usage>();
  /** Costs reported per model call (CLIs that report cost per step). */
  private perCallCost = new Map<string, number>();
  private anonymous = emptyUsage();
  private final: Usage | undefined;
  costUsd: number | undefined;
  model: string | undefined;
  /** Prompt-side tokens of the latest model call: how full the context window was. */
  private lastContext = 0;

  add(event: AgentEvent): void {
    if (event.type === 'system' && event.model) this.model = event.model;
    if (event.type === 'usage') {
      if (event.model) this.model = event.model;
      if (event.costUsd !== undefined)
        this.perCallCost.set(event.messageId ?? `call-${this.perCallCost.size}`, event.costUsd);
      if (event.messageId) this.perCall.set(event.messageId, event.usage);
      else {
        const a = this.anonymous;
        a.inputTokens += event.usage.inputTokens;
        a.outputTokens += event.usage.outputTokens;
        a.cacheReadTokens += event.usage.cacheReadTokens;
        a.cacheWriteTokens += event.usage.cacheWriteTokens;
      }
      this.lastContext = event.usage.inputTokens + event.usage.cacheReadTokens + event.usage.cacheWriteTokens;
    } else if (event.type === 'result') {
      if (event.usage && totalTokens(event.usage) > 0) this.final = event.usage;
      if (event.costUsd !== undefined) this.costUsd = event.costUsd;
      if (event.model) this.model = event.model;
    }
  }

  /**
   * The cost so far: what the CLI reported, else an estimate from the usage and the model's list
   * price (so max_cost_usd can stop an agent between its model calls), else undefined.
   */
  spentUsd(): number | undefined {
    if (this.costUsd !== undefined) return this.costUsd;
    if (this.perCallCost.size > 0) return [...this.perCallCost.values()].reduce((a, b) => a + b, 0);
    return estimateCostUsd(this.model, this.usage());
  }

  /** True when spentUsd() is a list-price estimate rather than what the CLI reported. */
  costIsEstimate(): boolean {
    return this.costUsd === undefined && this.perCallCost.size === 0 && this.spentUsd() !== undefined;
  }

  usage(): Usage {
    if (this.final) return this.final;
    const sum = { ...this.anonymous };
    for (const u of this.perCall.values()) {
      sum.inputTokens += u.inputTokens;
      sum.outputTokens += u.outputTokens;
      sum.cacheReadTokens += u.cacheReadTokens;
      sum.cacheWriteTokens += u.cacheWriteTokens;
    }
    return sum;
  }

  totals(): TokenTotals {
    const u = this.usage();
    return {
      input: u.inputTokens,
      output: u.outputTokens,
      cache_read: u.cacheReadTokens,
      cache_write: u.cacheWriteTokens,
      total: totalTokens(u),
    };
  }

  contextPct(): number | null {
    const window = contextWindowFor(this.model);
    const used =
      this.lastContext ||
      (this.final ? this.final.inputTokens + this.final.cacheReadTokens + this.final.cacheWriteTokens : 0);
    if (!window || used === 0) return null;
    return Math.round(Math.min(100, (used / window) * 100) * 10) / 10;
  }
}

export function addTotals(a: TokenTotals, b: TokenTotals): TokenTotals {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    total: a.total + b.total,
  };
}

/** Several turns' meters read as one (the members of an agent wave): usage and cost summed. */
export class SummedMeter extends UsageMeter {
  private readonly parts: readonly UsageMeter[];

  /** `parts` is read live: a caller may add to the array while the turns run. */
  constructor(parts: readonly UsageMeter[]) {
    super();
    this.parts = parts;
    this.model = parts.find((p) => p.model !== undefined)?.model;
  }

  override add(): void {
    // Each part is fed by its own turn.
  }

  override spentUsd(): number | undefined {
    const costs = this.parts.map((p) => p.spentUsd()).filter((c): c is number => c !== undefined);
    return costs.length === 0 ? undefined : costs.reduce((a, b) => a + b, 0);
  }

  override costIsEstimate(): boolean {
    return this.parts.some((p) => p.costIsEstimate());
  }

  override usage(): Usage {
    const sum = emptyUsage();
    for (const u of this.parts.map((p) => p.usage())) {
      sum.inputTokens += u.inputTokens;
      sum.outputTokens += u.outputTokens;
      sum.cacheReadTokens += u.cacheReadTokens;
      sum.cacheWriteTokens += u.cacheWriteTokens;
    }
    return sum;
  }

  override contextPct(): number | null {
    const pcts = this.parts.map((p) => p.contextPct()).filter((p): p is number => p !== null);
    return pcts.length === 0 ? null : Math.max(...pcts);
  }
}
