import type { SuccessBody } from './types.ts';

/**
 * The folders list (release 0.1.0, spec section 9): `items` and `pageInfo`, with `first` and
 * `after` cursor pagination. Its `data` and `count` are deprecated in the document, and so marked
 * `@deprecated` in the generated type, but still populated.
 */
export type FoldersListResponse = SuccessBody<'/api/v1/deployments/{deploymentId}/folders', 'get'>;

/**
 * The reports list (release 0.1.1, spec section 9): the same pagination; `sortBy` accepts `name`.
 * Its `data` and `count` are deprecated but populated.
 */
export type ReportsListResponse = SuccessBody<'/api/v1/deployments/{deploymentId}/reports', 'get'>;
