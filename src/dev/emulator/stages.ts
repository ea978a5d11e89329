import type { OrderStatus } from './store.js';

/**
 * The stages an emulated order goes through (the diagram is in processor.ts, after DESIGN section 6): how long each
 * automatic step waits, the targets the test hooks can move an order to, and which status may follow which.
 */

export interface StageDelays {
  /** stored → Order Received or Order Submission Error */
  receivedMs: number;
  /** received → file fetching starts; Order Print Ready or Order Errored follows when the files are in */
  printReadyMs: number;
  /** print ready → first Shipment Shipped, and between two shipments */
  shipMs: number;
}

export const DEFAULT_DELAYS: StageDelays = { receivedMs: 500, printReadyMs: 2000, shipMs: 3000 };

export const ADVANCE_TARGETS = ['received', 'printready', 'shipped', 'errored', 'cancelled', 'submissionerror'] as const;
export type AdvanceTarget = (typeof ADVANCE_TARGETS)[number];

export const ALLOWED: Record<OrderStatus, readonly OrderStatus[]> = {
  submitted: ['received', 'submissionerror', 'cancelled'],
  received: ['printready', 'errored', 'cancelled'],
  printready: ['shipped', 'cancelled'],
  errored: ['cancelled'],
  shipped: [],
  cancelled: [],
  submissionerror: [],
};

export const MAIN_LINE: Partial<Record<OrderStatus, number>> = { submitted: 0, received: 1, printready: 2, shipped: 3 };
