/**
 * The fulfillment hold print-bridge places itself, on a fulfillment order it will print, while the order waits for
 * print-bridge (its edit window, a mapping problem, test mode). Shopify keeps a hold's handle unique per app and
 * fulfillment order, so this handle names the app's one hold; a hold with this handle placed by another app is that
 * app's, never print-bridge's.
 */
export const APP_HOLD_HANDLE = 'print-bridge';

/** What the app reads of a fulfillment hold to tell its own from the merchant's and other apps'. */
export interface HoldOwner {
  handle: string | null;
  /** Shopify's `heldByRequestingApp`: the hold was placed by the app that asks. */
  heldByRequestingApp: boolean;
}

/** The app's own hold: never a reason for it to wait, and the only hold it ever releases. */
export function isOwnHold(hold: HoldOwner): boolean {
  return hold.heldByRequestingApp && hold.handle === APP_HOLD_HANDLE;
}
