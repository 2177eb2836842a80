/**
 * The React names before release 0.0.20 (spec section 9), aliases until the next major version.
 */
import { ClientProvider, type ClientProviderProps, useClient } from './provider.ts';

/** @deprecated Since 0.0.20: use `ClientProvider`. */
export const TesseraClientProvider: typeof ClientProvider = ClientProvider;

/** @deprecated Since 0.0.20: use `ClientProviderProps`. */
export type TesseraClientProviderProps = ClientProviderProps;

/** @deprecated Since 0.0.20: use `useClient`. */
export const useTesseraClient: typeof useClient = useClient;
