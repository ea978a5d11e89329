import { describe, expect, it } from 'vitest';
import { checkWebhookAgreement } from './webhook-agreement.js';
import { HANDLED_TOPICS } from './webhook-intake.js';

const SHOP = 'agreement.myshopify.com';

describe('how a webhook body agrees with its unsigned headers', () => {
  it('refuses a topic that has no rule of its own, rather than taking it on trust', () => {
    expect(checkWebhookAgreement('products/create', SHOP, { id: 1, title: 'Poster' })).toEqual({ ok: false, reason: 'no rule says how a products/create body agrees with its headers' });
  });

  it('has a rule for every topic intake handles: none is refused for want of one', () => {
    for (const topic of HANDLED_TOPICS) {
      const agreement = checkWebhookAgreement(topic, SHOP, {});
      if (!agreement.ok) expect(agreement.reason, topic).not.toMatch(/^no rule says/);
    }
  });

  it('takes a refund body by its order_id', () => {
    expect(checkWebhookAgreement('refunds/create', SHOP, { id: 5, order_id: 820982911946154500 })).toEqual({ ok: true });
    expect(checkWebhookAgreement('refunds/create', SHOP, { id: 5 }).ok).toBe(false);
  });
});
