export { appBridgeStandIn } from './app-bridge-stand-in.js';
export { POLARIS_STAND_IN } from './polaris-stand-in.js';
