import { pino, type Logger, type LoggerOptions } from 'pino';

/**
 * Structured logs. Secrets and customer addresses are redacted by path wherever they may appear in a log object;
 * code must still never put a secret into a message string.
 */
const REDACT_PATHS = [
  'secret',
  'token',
  'password',
  '*.secret',
  '*.token',
  '*.password',
  'headers["x-service-authorization"]',
  'headers.authorization',
  'headers["x-shopify-hmac-sha256"]',
  'config.PRINT_API_SECRET',
  'config.SHOPIFY_API_SECRET',
  'config.ADMIN_TOKEN',
  'config.POSTBACK_TOKEN',
  'config.POSTBACK_BASIC_AUTH',
  'headers.authorization',
  'shipTo',
  '*.shipTo',
  'shipping_address',
  '*.shipping_address',
  'billing_address',
  '*.billing_address',
  'customer',
  '*.customer',
  // Errors are logged whole (message, stack, cause, own fields): what a library attaches of the request or response
  // may carry credentials or a customer's data.
  'err.request',
  'err.response',
  'err.config',
  'err.options',
  'err.headers',
  'err.body',
];

export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: options.name ? { name: options.name } : {},
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}

export const silentLogger: Logger = pino({ level: 'silent' });

export type { Logger };
