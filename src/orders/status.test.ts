import { describe, expect, it } from 'vitest';
import { canMove, isSubmittedStatus } from './status.js';

describe('canMove', () => {
  it('moves forward along the main line only', () => {
    expect(canMove('pending', 'submitting')).toBe(true);
    expect(canMove('submitted', 'print-ready')).toBe(true);
    expect(canMove('print-ready', 'shipped')).toBe(true);
    expect(canMove('print-ready', 'received')).toBe(false);
    expect(canMove('shipped', 'print-ready')).toBe(false);
    expect(canMove('submitted', 'submitted')).toBe(false);
    expect(canMove('submitted', 'pending')).toBe(false);
  });

  it('lets errors happen before shipping and be resubmitted', () => {
    expect(canMove('received', 'error')).toBe(true);
    expect(canMove('shipped', 'error')).toBe(false);
    expect(canMove('error', 'submitting')).toBe(true);
    expect(canMove('error', 'print-ready')).toBe(true);
    expect(canMove('error', 'pending')).toBe(false);
  });

  it('makes cancelled final and keeps shipped orders from being cancelled', () => {
    expect(canMove('print-ready', 'cancelled')).toBe(true);
    expect(canMove('shipped', 'cancelled')).toBe(false);
    expect(canMove('cancelled', 'submitting')).toBe(false);
    expect(canMove('cancelled', 'shipped')).toBe(false);
  });

  it('moves between the two waits before submission, and never back to them', () => {
    expect(canMove('pending', 'waiting')).toBe(true);
    expect(canMove('waiting', 'pending')).toBe(true);
    expect(canMove('waiting', 'held')).toBe(true);
    expect(canMove('waiting', 'submitting')).toBe(true);
    expect(canMove('waiting', 'cancelled')).toBe(true);
    expect(canMove('held', 'waiting')).toBe(false);
    expect(canMove('held', 'pending')).toBe(false);
    expect(canMove('submitting', 'waiting')).toBe(false);
    expect(canMove('error', 'waiting')).toBe(false);
    expect(canMove('shipped', 'waiting')).toBe(false);
  });

  it('makes not-printed a final state reached only before anything was sent, left only by a resubmit', () => {
    for (const from of ['pending', 'waiting', 'held', 'error'] as const) expect(canMove(from, 'not-printed')).toBe(true);
    for (const from of ['submitting', 'submitted', 'received', 'shipped', 'cancelled'] as const) expect(canMove(from, 'not-printed')).toBe(false);
    expect(canMove('not-printed', 'submitting')).toBe(true);
    expect(canMove('not-printed', 'cancelled')).toBe(true);
    for (const to of ['pending', 'waiting', 'held', 'submitted', 'shipped', 'error'] as const) expect(canMove('not-printed', to)).toBe(false);
  });

  it('knows which statuses mean the printer has the order', () => {
    expect(isSubmittedStatus('submitting')).toBe(false);
    expect(isSubmittedStatus('submitted')).toBe(true);
    expect(isSubmittedStatus('shipped')).toBe(true);
    expect(isSubmittedStatus('error')).toBe(false);
  });
});
