import { z } from 'zod';
import { ISO_COUNTRY_CODES, NOT_ISO_COUNTRY } from './iso-countries.js';

/**
 * The pieces more than one of the print service's documents is made of (schema.ts lists the documents): the order
 * sends a shipTo, the shipment resource returns one and update shipping takes one, so they are defined once, here.
 */

export const nonEmpty = z.string().min(1, 'must not be empty');
export const isoCountry = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO country code')
  .transform((v) => v.toUpperCase())
  .superRefine((v, ctx) => {
    if (ISO_COUNTRY_CODES.has(v)) return;
    const meant = NOT_ISO_COUNTRY[v];
    ctx.addIssue({
      code: 'custom',
      message: meant ? `${v} is not an ISO 3166-1 country code; use ${meant}` : `${v} is not an ISO 3166-1 alpha-2 country code`,
    });
  });

export const shipToSchema = z.object({
  name: nonEmpty,
  companyName: z.string().optional(),
  address1: nonEmpty,
  address2: z.string().optional(),
  address3: z.string().optional(),
  town: nonEmpty,
  postcode: nonEmpty,
  state: z.string().optional(),
  isoCountry,
  country: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
});
export type ShipTo = z.infer<typeof shipToSchema>;
