import type { HistoryEntry, OrderLink } from '../orders/model.js';
import { mapRecordedTexts, RECORDED_TEXT_LIMIT, recordedText } from '../orders/recorded-text.js';

/** The order store bounds every recorded text of a link and its history as it writes them (src/orders/recorded-text.ts). */

/** The link with its recorded texts bounded; the same object when none is over the limit. */
export function boundedLink(link: OrderLink): OrderLink {
  let cut = false;
  const bounded = mapRecordedTexts(link, (text) => {
    const kept = recordedText(text);
    cut ||= kept !== text;
    return kept;
  });
  return cut ? bounded : link;
}

/** A history entry with its event and detail bounded. */
export function boundedHistoryEntry<T extends Omit<HistoryEntry, 'at'>>(entry: T): T {
  return entry.event.length > RECORDED_TEXT_LIMIT || (entry.detail?.length ?? 0) > RECORDED_TEXT_LIMIT
    ? { ...entry, event: recordedText(entry.event), detail: entry.detail === undefined ? undefined : recordedText(entry.detail) }
    : entry;
}
