/**
 * The policy portfolio (superusers): the dataspace's products by gate (the gate counters), the rules
 * with the most products in active violation and the violations per day (the stream router's daily
 * counts), put together by shared/domain/portfolio.ts.
 */
import type { Caller } from '../domain/caller.ts';
import { ForbiddenError } from '../domain/errors.ts';
import { firstDay, portfolioDays, topRules, type GateFilter, type PortfolioDay, type TopRule } from '../domain/portfolio.ts';
import { PORTFOLIO_DAYS } from '../schemas/portfolio.ts';
import type { ProductStore } from '../store/product-store.ts';
import type { ViolationDayStore } from '../store/violation-day-store.ts';

export interface PortfolioDeps {
  readonly products: Pick<ProductStore, 'gateCounts'>;
  readonly violationDays: Pick<ViolationDayStore, 'read'>;
  readonly now: () => Date;
}

export interface PortfolioView {
  readonly products_by_gate: Record<GateFilter, number>;
  readonly top_rules: TopRule[];
  readonly days: PortfolioDay[];
}

export class PortfolioService {
  constructor(private readonly deps: PortfolioDeps) {}

  /** `days` checked at the edge (shared/schemas/portfolio.ts); empty or absent: the default. */
  async portfolio(caller: Caller, query: { days?: string | undefined }): Promise<PortfolioView> {
    if (!caller.isSuperuser) throw new ForbiddenError();
    const days = query.days ? Number(query.days) : PORTFOLIO_DAYS.default;
    const today = this.deps.now().toISOString().slice(0, 10);
    const [byGate, stored] = await Promise.all([
      this.deps.products.gateCounts(caller.dataspace),
      this.deps.violationDays.read(caller.dataspace, firstDay(today, days)),
    ]);
    return {
      products_by_gate: byGate,
      top_rules: topRules(stored.totals.byRule),
      days: portfolioDays(stored.days, stored.totals.active, today, days),
    };
  }
}
