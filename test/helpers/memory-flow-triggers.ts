import type { FlowTriggerChange, FlowTriggerRepository } from '../../src/flow/trigger-repository.js';

/** The Flow trigger repository in memory, with PostgresFlowTriggers's rule: an older callback changes nothing. */
export class MemoryFlowTriggers implements FlowTriggerRepository {
  readonly rows = new Map<string, FlowTriggerChange>();

  async record(change: FlowTriggerChange): Promise<boolean> {
    const key = `${change.shop} ${change.handle}`;
    const known = this.rows.get(key);
    if (known && known.changedAt.getTime() >= change.changedAt.getTime()) return false;
    this.rows.set(key, { ...change });
    return true;
  }

  async enabledOf(shop: string): Promise<Map<string, Date>> {
    return new Map([...this.rows.values()].filter((r) => r.shop === shop && r.enabled).map((r) => [r.handle, r.changedAt]));
  }

  async forgetShop(shop: string): Promise<number> {
    let removed = 0;
    for (const [key, row] of this.rows) if (row.shop === shop && this.rows.delete(key)) removed += 1;
    return removed;
  }
}
