import { describe, expect, it } from 'vitest';
import { blankOrder } from '../../orders/model.js';
import { REDACTED_TEXT, withoutCustomerTexts } from './redact.js';

const NAME = 'Pia-Privacy-Person';

describe("a redacted customer's order link", () => {
  it('keeps no text that may quote the customer, in fulfillment-service mode and in a hold wait too', () => {
    const at = '2026-11-28T10:00:00Z';
    const link = {
      ...blankOrder('a.myshopify.com', 'gid://shopify/Order/1', new Date(at)),
      problems: [{ kind: 'mapping', message: `path "http://x.example/${NAME}/cover.pdf" uses http`, at }],
      notPrintedReason: `left to the merchant: ${NAME}`,
      fulfillmentRequest: {
        fulfillmentOrders: [],
        rejection: {
          reason: 'OTHER' as const,
          message: `print-bridge cannot print #1001: path "http://x.example/${NAME}/cover.pdf" uses http`,
          lineItems: [{ fulfillmentOrderLineItemId: 'gid://shopify/FulfillmentOrderLineItem/1', message: `http://x.example/${NAME}/cover.pdf` }],
        },
      },
      shipments: [
        {
          index: 0,
          lineItems: [],
          waitingForRelease: { since: at, message: `waiting for the hold to be released: Other (call ${NAME})`, fulfillmentOrderIds: [], checks: 0 },
        },
      ],
    };
    const redacted = withoutCustomerTexts(link as never);
    expect(JSON.stringify(redacted)).not.toContain(NAME);
    expect(redacted.fulfillmentRequest?.rejection?.reason).toBe('OTHER');
    expect(redacted.shipments[0]?.waitingForRelease?.message).toBe(REDACTED_TEXT);
  });
});
