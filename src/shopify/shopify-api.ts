import '@shopify/shopify-api/adapters/node';
import { type ApiVersion, LogSeverity, shopifyApi, type Shopify } from '@shopify/shopify-api';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import type { Config } from '../config.js';

export interface ShopifyApiSettings {
  apiKey: string;
  apiSecret: string;
  appUrl: string;
  scopes: string[];
  apiVersion: string;
  sessionStorage?: SessionStorage;
}

/** The library instance: webhook HMAC validation, OAuth, session tokens and the Admin GraphQL client. */
export function createShopifyApi(settings: ShopifyApiSettings): Shopify {
  const url = new URL(settings.appUrl);
  return shopifyApi({
    apiKey: settings.apiKey,
    apiSecretKey: settings.apiSecret,
    scopes: settings.scopes,
    hostName: url.host,
    hostScheme: url.protocol === 'http:' ? 'http' : 'https',
    apiVersion: settings.apiVersion as ApiVersion,
    isEmbeddedApp: true,
    // The library's own logging goes through console; ours is pino. Keep it to errors.
    logger: { level: LogSeverity.Error, log: async () => undefined },
  });
}

/** The library instance from the app's configuration. */
export function shopifyApiFromConfig(
  config: Pick<Config, 'SHOPIFY_API_KEY' | 'SHOPIFY_API_SECRET' | 'APP_URL' | 'SHOPIFY_SCOPES' | 'SHOPIFY_API_VERSION'>,
): Shopify {
  return createShopifyApi({
    apiKey: config.SHOPIFY_API_KEY ?? '',
    apiSecret: config.SHOPIFY_API_SECRET ?? '',
    appUrl: config.APP_URL ?? 'https://localhost',
    scopes: config.SHOPIFY_SCOPES,
    apiVersion: config.SHOPIFY_API_VERSION,
  });
}
