import type { SchemaProfile } from '../../print-service/schema.js';
import type { EmulatorAccount } from './accounts.js';
import type { Authenticator } from './auth.js';
import type { DeliveryService } from './deliveries.js';
import type { RandomSource } from './ids.js';
import type { Processor } from './processor.js';
import type { EmulatorStore } from './store.js';

/** Fault injection, changeable while running through `PUT /_emulator/faults`. */
export interface Faults {
  /** Share of creates answered 503 before anything is stored. */
  failRate: number;
  /** Share of creates stored and then answered with a dropped connection. */
  dropRate: number;
}

/** Everything a request handler needs, built once by startEmulator. */
export interface EmulatorRuntime {
  readonly baseUrl: string;
  readonly ordersUrl: string;
  readonly accounts: readonly EmulatorAccount[];
  readonly auth: Authenticator;
  readonly store: EmulatorStore;
  readonly processor: Processor;
  readonly deliveries: DeliveryService;
  readonly profile: SchemaProfile;
  readonly faults: Faults;
  readonly random: RandomSource;
  readonly now: () => Date;
  readonly newId: () => string;
}
