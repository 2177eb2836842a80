import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ApiError,
  type Client,
  type ClientOptions,
  type CubeQuery,
  createClient,
  createTesseraClient,
  type ErrorBody,
  type ErrorCode,
  type FoldersListResponse,
  type LoadMultiResult,
  type LoadResult,
  type MetaResult,
  type PageItem,
  type ReportsListResponse,
  type RequestOptionsOf,
  type SqlColumn,
  type SuccessBody,
  type TesseraClient,
  type TesseraClientOptions,
} from '../src/index.ts';
import * as react from '../src/react/index.ts';

/**
 * Type tests: `npm run typecheck` (the root tsconfig includes this file) checks them; at run time
 * vitest only runs the alias identities. Calls that must not compile sit in functions never called.
 */
const client = createClient({ baseUrl: 'http://127.0.0.1:1', token: 'key' });
const folders = '/api/v1/deployments/{deploymentId}/folders' as const;

describe('types generated from the OpenAPI document', () => {
  it('types success bodies, parameters and bodies per operation', () => {
    type Folders = SuccessBody<typeof folders, 'get'>;
    expectTypeOf<Folders['items'][number]['name']>().toEqualTypeOf<string>();
    expectTypeOf<Folders['pageInfo']['hasNextPage']>().toEqualTypeOf<boolean>();
    expectTypeOf(client.GET).parameter(0).toExtend<string>();
    expectTypeOf<
      Awaited<
        ReturnType<typeof client.GET<typeof folders, { params: { path: { deploymentId: number } } }>>
      >['data']
    >().toEqualTypeOf<Folders | undefined>();

    const neverCalled = () => {
      // @ts-expect-error a wrong body: name is a string
      client.POST(folders, { params: { path: { deploymentId: 1 } }, body: { name: 5 } });
      // @ts-expect-error a missing required body field
      client.POST(folders, { params: { path: { deploymentId: 1 } }, body: {} });
      // @ts-expect-error a wrong parameter: deploymentId is a number
      client.GET(folders, { params: { path: { deploymentId: 'one' } } });
      // @ts-expect-error an unknown query parameter
      client.GET(folders, { params: { path: { deploymentId: 1 }, query: { color: 'red' } } });
      // @ts-expect-error a missing path parameter
      client.GET(folders, { params: { path: {} } });
      // @ts-expect-error an unknown operation
      client.GET('/api/v1/nothing-here');
      // @ts-expect-error a method the path does not have
      client.DELETE('/api/v1/app-config');
      // @ts-expect-error no hook for an unknown operation
      react.useGetNothingHere();
    };
    expect(typeof neverCalled).toBe('function');
  });

  it('types error bodies as problem+json with the codes the document declares', () => {
    type Code = ErrorCode<typeof folders, 'post'>;
    expectTypeOf<'not_found'>().toExtend<Code>();
    expectTypeOf<'validation_failed'>().toExtend<Code>();
    expectTypeOf<string>().not.toExtend<Code>();
    const neverCalled = async () => {
      const { error } = await client.POST(folders, {
        params: { path: { deploymentId: 1 } },
        body: { name: 'x' },
      });
      if (error) {
        expectTypeOf(error.detail).toEqualTypeOf<string>();
        expectTypeOf(error.code).toEqualTypeOf<Code>();
        expectTypeOf(error.errors).toExtend<{ field: string; message: string }[] | undefined>();
      }
    };
    expect(typeof neverCalled).toBe('function');
  });

  it('pages only the paged lists, with their item type', () => {
    expectTypeOf<PageItem<typeof folders>>().toEqualTypeOf<FoldersListResponse['items'][number]>();
    const neverCalled = () => {
      // @ts-expect-error app-config is not a paged list
      client.paginate('/api/v1/app-config', {});
    };
    expect(typeof neverCalled).toBe('function');
  });

  it('keeps the 0.1.0 and 0.1.1 list response names with data and count populated', () => {
    expectTypeOf<FoldersListResponse>().toEqualTypeOf<SuccessBody<typeof folders, 'get'>>();
    expectTypeOf<FoldersListResponse>().toHaveProperty('data');
    expectTypeOf<FoldersListResponse['count']>().toEqualTypeOf<number>();
    expectTypeOf<ReportsListResponse>().toHaveProperty('pageInfo');
    expectTypeOf<ReportsListResponse['count']>().toEqualTypeOf<number>();
    type ReportsQuery = NonNullable<
      RequestOptionsOf<'/api/v1/deployments/{deploymentId}/reports', 'get'>['params']
    >['query'];
    expectTypeOf<'name'>().toExtend<NonNullable<NonNullable<ReportsQuery>['sortBy']>>();
  });

  it('has the 0.1.2 additions that the server documents', () => {
    expectTypeOf<SuccessBody<'/api/v1/app-config', 'get'>>().toHaveProperty('applyThemeGlobally');
    expectTypeOf<SuccessBody<'/api/v1/app-config', 'get'>>().toHaveProperty('creatorMode');
    type Duplicate = RequestOptionsOf<
      '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/duplicate',
      'post'
    >['body'];
    expectTypeOf<NonNullable<Duplicate>>().toHaveProperty('shared');
    type Published = SuccessBody<'/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/publish', 'post'>;
    expectTypeOf<Published['fromSharedWorkspace']>().toEqualTypeOf<boolean>();
    type Workbook = SuccessBody<'/api/v1/deployments/{deploymentId}/workbooks/{workbookId}', 'get'>;
    expectTypeOf<Workbook>().toHaveProperty('user');
  });

  it('types the data API from the document', () => {
    expectTypeOf<CubeQuery>().toHaveProperty('measures');
    expectTypeOf<LoadResult>().toHaveProperty('annotation');
    expectTypeOf<LoadMultiResult['results'][number]>().toEqualTypeOf<LoadResult>();
    expectTypeOf<MetaResult['cubes'][number]['name']>().toEqualTypeOf<string>();
    expectTypeOf<SqlColumn>().toEqualTypeOf<{ name: string; column_type: string }>();
  });

  it('types hooks: data from the document, errors as ApiError of the problem body', () => {
    type Query = ReturnType<typeof react.useGetFolders>;
    expectTypeOf<Query['data']>().toEqualTypeOf<FoldersListResponse | undefined>();
    expectTypeOf<Query['error']>().toEqualTypeOf<ApiError<ErrorBody<typeof folders, 'get'>> | null>();
    const key = react.apiQueryKey(folders, { params: { path: { deploymentId: 1 } } });
    expectTypeOf(key[0]).toEqualTypeOf<typeof folders>();
    type Mutation = ReturnType<typeof react.useCreateFolder>;
    expectTypeOf<Parameters<Mutation['mutate']>[0]['body']>().toEqualTypeOf<
      RequestOptionsOf<typeof folders, 'post'>['body']
    >();
  });
});

describe('names before 0.0.20 (spec section 9)', () => {
  it('are the same values at run time', () => {
    expect(createTesseraClient).toBe(createClient);
    expect(react.TesseraClientProvider).toBe(react.ClientProvider);
    expect(react.useTesseraClient).toBe(react.useClient);
  });

  it('are the same types', () => {
    expectTypeOf<TesseraClient>().toEqualTypeOf<Client>();
    expectTypeOf<TesseraClientOptions>().toEqualTypeOf<ClientOptions>();
    expectTypeOf(createTesseraClient).toEqualTypeOf(createClient);
    expectTypeOf<react.TesseraClientProviderProps>().toEqualTypeOf<react.ClientProviderProps>();
    expectTypeOf(react.useTesseraClient).toEqualTypeOf(react.useClient);
  });
});
