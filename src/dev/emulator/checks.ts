import { parseOrder, type LenientPrintOrder, type PrintOrder, type SchemaProblem, type SchemaProfile } from '../../print-service/schema.js';
import type { EmulatorAccount } from './accounts.js';
import { isPlainObject } from './http.js';

/**
 * The checks an order goes through, shared by validate (answered at once) and by asynchronous processing after a
 * create (ending in an Order Submission Error): the project's order schema, then what only the service knows: the
 * account's destinations, the SKUs set up in them and the carrier aliases set up for the account.
 */
export interface CheckResult {
  problems: SchemaProblem[];
  order?: PrintOrder | LenientPrintOrder;
}

export function checkOrder(input: unknown, account: EmulatorAccount, profile: SchemaProfile): CheckResult {
  const parsed = parseUnder(input, profile);
  const problems: SchemaProblem[] = parsed.ok ? [] : [...parsed.problems];
  if (!isPlainObject(input)) return { problems };
  const destinationName = isPlainObject(input.destination) ? input.destination.name : undefined;
  const orderData = isPlainObject(input.orderData) ? input.orderData : {};

  let skus: ReadonlySet<string> | undefined;
  let destinationLabel = '';
  if (typeof destinationName === 'string' && destinationName !== '') {
    destinationLabel = destinationName;
    if (account.destinations) {
      const destination = account.destinations.get(destinationName);
      if (!destination) {
        const known = [...account.destinations.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none';
        problems.push({
          path: 'destination.name',
          message: `"${destinationName}" is not a destination account that ${account.name} may send to (known: ${known})`,
        });
      } else {
        skus = destination.skus;
      }
    }
  }

  if (skus && Array.isArray(orderData.items)) {
    orderData.items.forEach((item, i) => {
      const sku = isPlainObject(item) ? item.sku : undefined;
      if (typeof sku === 'string' && sku !== '' && !skus.has(sku)) {
        problems.push({
          path: `orderData.items[${i}].sku`,
          message: `SKU "${sku}" is not set up in destination "${destinationLabel}"`,
        });
      }
    });
  }

  if (account.carriers && Array.isArray(orderData.shipments)) {
    const carriers = account.carriers;
    orderData.shipments.forEach((shipment, i) => {
      const carrier = isPlainObject(shipment) && isPlainObject(shipment.carrier) ? shipment.carrier : undefined;
      const alias = carrier?.alias;
      if (typeof alias === 'string' && alias !== '' && !carriers.has(alias)) {
        problems.push({
          path: `orderData.shipments[${i}].carrier.alias`,
          message: `carrier alias "${alias}" is not set up for ${account.name} (set up: ${[...carriers.keys()].join(', ')})`,
        });
      }
    });
  }

  return parsed.ok && problems.length === 0 ? { problems, order: parsed.order } : { problems };
}

/**
 * `lenient` takes what either form of the interface takes: the earliest form's minimum order, and the later form's
 * orders print-bridge sends, which may leave out the return address's postcode the earliest form wants. `strict` (the
 * default) takes the later form only.
 */
function parseUnder(input: unknown, profile: SchemaProfile): ReturnType<typeof parseOrder> {
  const parsed = parseOrder(input, profile);
  if (parsed.ok || profile === 'strict') return parsed;
  const later = parseOrder(input, 'strict');
  return later.ok ? later : parsed;
}
