import type { Logger } from '../../logger.js';
import { formatProblems, type SchemaProfile } from '../../print-service/schema.js';
import { checkOrder } from './checks.js';
import type { DeliveryService } from './deliveries.js';
import type { FileFetcher } from './fetcher.js';
import { apiErrors } from './http.js';
import { trackingNumberFor } from './ids.js';
import { fetchFileProblems } from './order-files.js';
import { applyShippingUpdate, carrierAtDispatch, shipmentsOf } from './shipments.js';
import { ALLOWED, MAIN_LINE, type AdvanceTarget, type StageDelays } from './stages.js';
import type { EmulatorStore, OrderStatus, ShipmentRecord, StoredOrder } from './store.js';
import type { EventName } from './triggers.js';

export { ADVANCE_TARGETS, DEFAULT_DELAYS, type AdvanceTarget, type StageDelays } from './stages.js';
export { applyShippingUpdate, carrierAtDispatch, DEFAULT_CARRIER_CODE, shipmentsOf } from './shipments.js';

/**
 * Asynchronous processing after a create, as DESIGN section 6 describes it:
 *
 *   submitted ─(checks)─▶ received ─(files)─▶ printready ─(each shipment)─▶ shipped
 *       └─▶ submissionerror        └─▶ errored
 *   cancelled from submitted, received, errored or printready (while no shipment has shipped)
 *
 * Each arrow is one step, taken automatically after its stage delay or at once through the test hooks. A status
 * never moves backwards; a cancelled order takes no further step (a file fetch in flight is ignored when it ends).
 */

export interface ProcessorOptions {
  store: EmulatorStore;
  profile: SchemaProfile;
  fetcher: FileFetcher;
  deliveries: DeliveryService;
  delays: StageDelays;
  /** No automatic steps: orders move only through the test hooks. */
  manual: boolean;
  now: () => Date;
  logger: Logger;
}

export class Processor {
  private closed = false;

  constructor(private readonly options: ProcessorOptions) {}

  get manual(): boolean {
    return this.options.manual;
  }

  /** Called right after a create is stored. */
  start(order: StoredOrder): void {
    this.schedule(order);
  }

  /** Cancels through the API or a hook; throws the API error when the order cannot be cancelled. */
  cancel(order: StoredOrder, by: string): void {
    const { record } = order;
    if (record.status === 'cancelled') throw apiErrors.alreadyCancelled(`order ${record._id} is already cancelled`);
    if (record.status === 'submissionerror') {
      throw apiErrors.notCancellable(`order ${record._id} ended in a submission error; there is nothing to cancel`);
    }
    if (record.status === 'shipped' || shipmentsOf(order).some((s) => s.status === 'shipped')) {
      throw apiErrors.notCancellable(`order ${record._id} has shipped; a shipped order cannot be cancelled`);
    }
    this.clearTimer(order);
    this.setStatus(order, 'cancelled');
    this.options.logger.info({ orderId: record._id, by }, 'order cancelled');
    this.emit('Order Cancelled', order);
  }

  /** Moves an order to `target` at once (test hooks); throws 409 when the target cannot be reached. */
  async advance(order: StoredOrder, target: AdvanceTarget, shipmentIndex?: number): Promise<void> {
    this.clearTimer(order);
    while (order.busy) await order.busy;
    try {
      await this.exclusive(order, () => this.advanceTo(order, target, shipmentIndex));
    } finally {
      this.schedule(order);
    }
  }

  private async advanceTo(order: StoredOrder, target: AdvanceTarget, shipmentIndex?: number): Promise<void> {
    const { record } = order;
    const from = record.status;
    const unreachable = () =>
      apiErrors.invalidTransition(
        `order ${record._id} is ${record.status}${record.status !== from ? ` (it was ${from})` : ''}; it cannot become ${target}` +
          (record.errors.length > 0 ? `: ${record.errors.join('; ')}` : ''),
      );
    switch (target) {
      case 'cancelled':
        this.cancel(order, 'the test hooks (a user at the printer)');
        return;
      case 'submissionerror':
        if (from !== 'submitted') throw unreachable();
        this.failSubmission(order, ['forced through /_emulator']);
        return;
      case 'errored':
        if (record.status === 'submitted') this.runChecks(order);
        if (record.status !== 'received') throw unreachable();
        this.failFiles(order, ['forced through /_emulator']);
        return;
      default: {
        const goal = MAIN_LINE[target] as number;
        const stopAt = target === 'shipped' && shipmentIndex !== undefined ? MAIN_LINE.printready! : goal;
        let rank = MAIN_LINE[record.status];
        if (rank !== undefined && rank > goal) throw unreachable();
        while (rank !== undefined && rank < stopAt) {
          await this.step(order);
          rank = MAIN_LINE[record.status];
        }
        if (rank === undefined) throw unreachable();
        if (shipmentIndex !== undefined && target === 'shipped') {
          const shipment = shipmentsOf(order)[shipmentIndex];
          if (!shipment) throw apiErrors.shipmentNotFound(`order ${record._id} has no shipment ${shipmentIndex}`);
          if (shipment.status === 'shipped') throw apiErrors.invalidTransition(`shipment ${shipmentIndex} has already shipped`);
          this.ship(order, shipment);
        }
      }
    }
  }

  /** Stops every automatic step (the emulator is closing). */
  close(): void {
    this.closed = true;
  }

  forget(order: StoredOrder): void {
    this.clearTimer(order);
  }

  // ---- steps ------------------------------------------------------------------------------------------------------

  private async step(order: StoredOrder): Promise<void> {
    switch (order.record.status) {
      case 'submitted':
        this.runChecks(order);
        return;
      case 'received':
        await this.fetchFiles(order);
        return;
      case 'printready': {
        const next = shipmentsOf(order).find((s) => s.status !== 'shipped');
        if (next) this.ship(order, next);
        return;
      }
      default:
        return;
    }
  }

  private runChecks(order: StoredOrder): void {
    const { record, account } = order;
    const input = { destination: record.destination, orderData: record.orderData };
    const { problems, order: parsed } = checkOrder(input, account, this.options.profile);
    if (order.sourceOrderId !== undefined) {
      const earlier = this.options.store
        .withSourceOrderId(account.accountId, order.sourceOrderId)
        .find((o) => o.seq < order.seq && o.record.status !== 'submissionerror');
      if (earlier) {
        problems.push({
          path: 'orderData.sourceOrderId',
          message: `an order with sourceOrderId "${order.sourceOrderId}" already exists (${earlier.record._id}); this submission is a duplicate`,
        });
      }
    }
    if (!parsed || problems.length > 0) {
      this.failSubmission(order, problems.map((p) => formatProblems([p])));
      return;
    }
    record.destination = parsed.destination;
    record.orderData = {
      ...parsed.orderData,
      shipments: parsed.orderData.shipments.map((s, i): ShipmentRecord => {
        const shipment: ShipmentRecord = { ...s, shipmentIndex: i, status: 'pending' };
        for (const update of order.amendments?.get(i) ?? []) applyShippingUpdate(shipment, update);
        return shipment;
      }),
    };
    order.amendments = undefined;
    this.setStatus(order, 'received');
    this.emit('Order Received', order);
  }

  private failSubmission(order: StoredOrder, errors: string[]): void {
    const { record } = order;
    record.errors = errors;
    this.setStatus(order, 'submissionerror');
    this.options.logger.info({ orderId: record._id, errors }, 'order submission error');
    this.emit('Order Submission Error', order, {
      TimeStamp: record.updatedAt,
      // The order never became one, so the sender's own id is the one a receiver can match; `_id` is in the context too.
      OrderId: order.sourceOrderId ?? record._id,
      status: 'Order submission error',
      errorsClean: errors,
    });
  }

  private async fetchFiles(order: StoredOrder): Promise<void> {
    const errors = await fetchFileProblems(this.options.fetcher, order);
    // Cancelled, or forgotten by a reset, while the files were coming in.
    if (order.record.status !== 'received' || this.options.store.get(order.record._id) !== order) return;
    if (errors.length > 0) {
      this.failFiles(order, errors);
      return;
    }
    this.setStatus(order, 'printready');
    this.emit('Order Print Ready', order);
  }

  private failFiles(order: StoredOrder, errors: string[]): void {
    order.record.errors = errors;
    this.setStatus(order, 'errored');
    this.options.logger.info({ orderId: order.record._id, errors }, 'order errored');
    this.emit('Order Errored', order);
  }

  private ship(order: StoredOrder, shipment: ShipmentRecord): void {
    const { record } = order;
    const now = this.options.now().toISOString();
    shipment.status = 'shipped';
    shipment.trackingNumber ??= trackingNumberFor(record._id, shipment.shipmentIndex);
    shipment.carrier = carrierAtDispatch(order.account, shipment.carrier);
    shipment.shippedAt = now;
    record.updatedAt = now;
    const allShipped = shipmentsOf(order).every((s) => s.status === 'shipped');
    if (allShipped) this.setStatus(order, 'shipped');
    this.emit('Shipment Shipped', order, {
      shipment,
      shipmentIndex: shipment.shipmentIndex,
      trackingNumber: shipment.trackingNumber,
      carrier: shipment.carrier,
    });
  }

  // ---- plumbing ---------------------------------------------------------------------------------------------------

  private setStatus(order: StoredOrder, to: OrderStatus): void {
    const from = order.record.status;
    if (!ALLOWED[from].includes(to)) throw new Error(`emulator bug: ${from} → ${to} is not a transition`);
    order.record.status = to;
    order.record.updatedAt = this.options.now().toISOString();
  }

  private emit(event: EventName, order: StoredOrder, extra: Record<string, unknown> = {}): void {
    this.options.logger.debug({ orderId: order.record._id, event }, 'event');
    if (this.options.deliveries.triggerCount === 0) return;
    this.options.deliveries.emit(event, order.record._id, {
      ...order.record,
      event,
      timestamp: this.options.now().toISOString(),
      ...extra,
    });
  }

  private schedule(order: StoredOrder): void {
    if (this.options.manual || this.closed) return;
    const delay = this.delayFor(order.record.status);
    if (delay === undefined) return;
    this.clearTimer(order);
    order.timer = setTimeout(() => {
      order.timer = undefined;
      void this.autoStep(order);
    }, delay);
  }

  private async autoStep(order: StoredOrder): Promise<void> {
    if (order.busy || this.closed) return;
    try {
      await this.exclusive(order, () => this.step(order));
    } catch (error) {
      this.options.logger.error({ err: error, orderId: order.record._id }, 'processing step failed');
      return;
    }
    if (this.options.store.get(order.record._id) === order) this.schedule(order);
  }

  private exclusive(order: StoredOrder, fn: () => Promise<void> | void): Promise<void> {
    const run = Promise.resolve()
      .then(fn)
      .finally(() => {
        if (order.busy === run) order.busy = undefined;
      });
    order.busy = run;
    return run;
  }

  private delayFor(status: OrderStatus): number | undefined {
    const { delays } = this.options;
    if (status === 'submitted') return delays.receivedMs;
    if (status === 'received') return delays.printReadyMs;
    if (status === 'printready') return delays.shipMs;
    return undefined;
  }

  private clearTimer(order: StoredOrder): void {
    if (order.timer) clearTimeout(order.timer);
    order.timer = undefined;
  }
}
