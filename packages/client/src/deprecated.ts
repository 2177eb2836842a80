/**
 * The names before release 0.0.20, which renamed the client factory, its types and hooks to
 * platform-neutral names (spec section 9). They stay as aliases until the next major version.
 */
import { type Client, type ClientOptions, createClient } from './client.ts';

/** @deprecated Since 0.0.20: use `createClient`. */
export const createTesseraClient: typeof createClient = createClient;

/** @deprecated Since 0.0.20: use `Client`. */
export type TesseraClient = Client;

/** @deprecated Since 0.0.20: use `ClientOptions`. */
export type TesseraClientOptions = ClientOptions;
