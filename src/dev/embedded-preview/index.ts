export { appBridgeStandIn } from './app-bridge-stand-in.js';
export { POLARIS_STAND_IN } from './polaris-stand-in.js';
export { adminHost, startEmbeddedPreview, PREVIEW_PREFIX, type EmbeddedPreview, type EmbeddedPreviewOptions } from './preview-server.js';
