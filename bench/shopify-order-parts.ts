/**
 * The parts bench/shopify-order-shape.ts builds orders from: words, people, places, the products and their line item
 * properties (storefront-personaliser artwork URLs, design JSON, dedications), money bags and addresses, as Shopify's
 * webhook payload reference writes them.
 */
import { hex, int, pick, type Rng, uuid } from './seeded-random.js';

export const WORDS =
  'for our little explorer with all our love happy birthday may your adventures be wild and your dreams bigger than the sky from grandma and grandpa remember the summer at the lake when we counted stars together forever and always'.split(
    ' ',
  );
export function words(rng: Rng, n: number): string {
  return Array.from({ length: n }, () => pick(rng, WORDS)).join(' ');
}

export interface Money {
  shop_money: { amount: string; currency_code: string };
  presentment_money: { amount: string; currency_code: string };
}
export function moneySet(amount: number, currency: string): Money {
  const a = amount.toFixed(2);
  return { shop_money: { amount: a, currency_code: currency }, presentment_money: { amount: a, currency_code: currency } };
}

export const PEOPLE = [
  ['Amelia', 'Hughes'],
  ['Oliver', 'Bennett'],
  ['Isla', 'Murray'],
  ['Noah', 'Fletcher'],
  ['Freya', 'Dunn'],
  ['Leo', 'Okafor'],
  ['Maya', 'Kowalski'],
  ['Arthur', 'Lindqvist'],
] as const;
export const PLACES = [
  { city: 'Leeds', province: 'England', province_code: 'ENG', zip: 'LS1 4AP', country: 'United Kingdom', country_code: 'GB' },
  { city: 'Bristol', province: 'England', province_code: 'ENG', zip: 'BS1 5TR', country: 'United Kingdom', country_code: 'GB' },
  { city: 'Edinburgh', province: 'Scotland', province_code: 'SCT', zip: 'EH1 1YZ', country: 'United Kingdom', country_code: 'GB' },
  { city: 'Dublin', province: 'Dublin', province_code: 'D', zip: 'D02 X285', country: 'Ireland', country_code: 'IE' },
] as const;

export function address(rng: Rng, person: readonly [string, string], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const place = pick(rng, PLACES);
  const company = rng() < 0.2 ? `${pick(rng, ['Northern', 'Harbour', 'Kestrel', 'Willow'])} ${pick(rng, ['Studio', 'Books Ltd', 'Design Co'])}` : null;
  return {
    ...extra,
    first_name: person[0],
    address1: `${int(rng, 1, 240)} ${pick(rng, ['Mill Lane', 'Station Road', 'Park Avenue', 'Queen Street', 'Church Walk'])}`,
    phone: rng() < 0.7 ? `+44 7${int(rng, 100, 999)} ${int(rng, 100000, 999999)}` : null,
    city: place.city,
    zip: place.zip,
    province: place.province,
    country: place.country,
    last_name: person[1],
    address2: rng() < 0.4 ? `Flat ${int(rng, 1, 40)}` : null,
    company,
    latitude: Number((50 + rng() * 6).toFixed(7)),
    longitude: Number((-4 + rng() * 4).toFixed(7)),
    name: `${person[0]} ${person[1]}`,
    country_code: place.country_code,
    province_code: place.province_code,
  };
}

export type Kind = 'book' | 'poster' | 'card';
export const PRODUCTS: Record<Kind, { skus: string[]; titles: string[]; variants: string[]; price: [number, number]; grams: [number, number] }> = {
  book: {
    skus: ['BOOK-A5-SOFT', 'BOOK-A5-HARD', 'BOOK-A4-HARD', 'BOOK-SQ-BOARD'],
    titles: ['The Little Explorer', 'Goodnight Moon and Me', 'My Big Birthday Adventure', 'Where the Wild Names Are'],
    variants: ['A5 / Softcover', 'A5 / Hardcover', 'A4 / Hardcover', 'Square / Board book'],
    price: [19, 45],
    grams: [250, 900],
  },
  poster: {
    skus: ['POSTER-A3', 'POSTER-A2', 'POSTER-50X70'],
    titles: ['Star Map', 'Family Tree Print', 'Name Meaning Poster'],
    variants: ['A3 / Unframed', 'A2 / Oak frame', '50x70 / Black frame'],
    price: [24, 89],
    grams: [150, 2200],
  },
  card: {
    skus: ['CARD-A6-10', 'CARD-SQ-25'],
    titles: ['Personalised Thank You Cards', 'Birth Announcement Cards'],
    variants: ['A6 / Pack of 10', 'Square / Pack of 25'],
    price: [12, 39],
    grams: [80, 300],
  },
};

export const ARTWORK_HOST = 'https://render.personaliser.example.com';

/** Storefront-personaliser properties: the artwork URLs the mapping's Liquid reads, and the customer's choices. */
export function properties(rng: Rng, kind: Kind, project: string, heavy: number): { name: string; value: string }[] {
  const base = `${ARTWORK_HOST}/r/${project.slice(0, 13)}`;
  const token = `?sig=${hex(rng, 12)}`;
  const props: { name: string; value: string }[] = [];
  if (kind === 'book') {
    props.push(
      { name: "Child's name", value: pick(rng, PEOPLE)[0] },
      ...(rng() < 0.25 ? [{ name: 'Dedication', value: words(rng, int(rng, 4, 30)) }] : []),
      { name: '_cover_pdf', value: `${base}/cover-${hex(rng, 8)}.pdf${token}` },
      { name: '_text_pdf', value: `${base}/text-${hex(rng, 8)}.pdf${token}` },
    );
  } else if (kind === 'poster') {
    props.push(
      ...(rng() < 0.5 ? [{ name: 'Caption', value: words(rng, int(rng, 3, 20)) }] : []),
      { name: '_artwork_url', value: `${base}/poster-${hex(rng, 8)}.pdf${token}` },
    );
  } else {
    props.push(
      ...(rng() < 0.5 ? [{ name: 'Message', value: words(rng, int(rng, 5, 30)) }] : []),
      { name: '_artwork_url', value: `${base}/front-${hex(rng, 8)}.pdf${token}` },
      { name: '_back_url', value: `${base}/back-${hex(rng, 8)}.pdf${token}` },
    );
  }
  if (rng() < 0.1) props.push(
    { name: '_preview', value: `${base}/preview-${hex(rng, 8)}_800.jpg${token}` },
    { name: '_project_id', value: project },
    { name: '_item_id', value: `${Date.UTC(2026, 10, 21)}:${int(rng, 10, 99)}:${int(rng, 1, 9)}` },
  );
  // The personaliser's saved design: a few hundred bytes to several KB, the main source of the long tail of sizes.
  if (heavy > 0) {
    const layers = Array.from({ length: heavy }, (_, i) => ({
      id: uuid(rng),
      type: pick(rng, ['text', 'image', 'shape']),
      x: int(rng, 0, 2480),
      y: int(rng, 0, 3508),
      w: int(rng, 20, 2480),
      h: int(rng, 20, 3508),
      font: pick(rng, ['Quicksand', 'Playfair Display', 'Caveat', 'Nunito']),
      text: i % 2 === 0 ? words(rng, int(rng, 1, 8)) : undefined,
      src: i % 2 === 1 ? `${ARTWORK_HOST}/assets/${hex(rng, 24)}.png` : undefined,
    }));
    props.push({ name: '_design', value: JSON.stringify({ version: 3, template: hex(rng, 10), layers }) });
  }
  return props;
}
