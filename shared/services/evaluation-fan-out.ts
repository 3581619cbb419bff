/**
 * A dataspace-wide re-evaluation, one page at a time: a change that can change every product of a
 * dataspace (a license, a usage policy, the rule configuration) queues the dataspace's first page;
 * each page queues the evaluation of up to `pageSize` products and then the next page. No invocation
 * iterates every product, however many the dataspace holds.
 */
import type { EvaluationQueue, FanOutPage } from '../aws/evaluation-queue.ts';

export interface EvaluationFanOutDeps {
  readonly products: { uuidsOfDataspacePage(dataspace: string, cursor: string | undefined, limit: number): Promise<{ uuids: string[]; next: string | undefined }> };
  readonly queue: EvaluationQueue;
  /** Products queued by one page (EVALUATION_FAN_OUT_PAGE_SIZE). */
  readonly pageSize: number;
}

export class EvaluationFanOut {
  constructor(private readonly deps: EvaluationFanOutDeps) {}

  /**
   * Queues the page's products, then the next page. Products first: a page that fails after queueing
   * them comes back and queues them again, which coalescing absorbs (an evaluation already newer than
   * `requestedAt` is skipped); a next page queued twice would walk the rest of the dataspace twice.
   */
  async page(page: FanOutPage): Promise<{ queued: number; next: boolean }> {
    const { uuids, next } = await this.deps.products.uuidsOfDataspacePage(page.dataspace, page.cursor, this.deps.pageSize);
    const { dataspace, requestedAt, correlationId } = page;
    await this.deps.queue.send(uuids.map((product) => ({ dataspace, product, requestedAt, ...(correlationId ? { correlationId } : {}) })));
    if (next !== undefined) await this.deps.queue.send([{ ...page, cursor: next }]);
    return { queued: uuids.length, next: next !== undefined };
  }
}
