import type { RequestOptionsOf, SuccessBody } from '@tessera/client';
import type { DashboardFilter, TimeGrain, WidgetAnswer } from './types.ts';

/** A published dashboard (spec 2.3), as `GET /api/v1/embed/dashboard/{publicId}` answers it. */
export type PublishedDashboard = SuccessBody<'/api/v1/embed/dashboard/{publicId}', 'get'>;
export type ReportSnapshot = PublishedDashboard['reportSnapshots'][number];

export const widgetDataPath =
  '/api/v1/deployments/{deploymentId}/dashboards/{publicId}/widgets/{widgetId}/data';
type WidgetDataPath = typeof widgetDataPath;
/** One widget's rows, as the widget-data endpoint answers them. */
export type WidgetData = SuccessBody<WidgetDataPath, 'post'>;
export type WidgetDataBody = NonNullable<RequestOptionsOf<WidgetDataPath, 'post'>['body']>;

// types.ts writes these shapes out; they must stay what the endpoint takes and answers.
type Agrees<A extends B, B> = A;
export type FiltersAgree = Agrees<DashboardFilter, NonNullable<WidgetDataBody['filters']>[number]>;
export type GrainsAgree = Agrees<TimeGrain, NonNullable<WidgetDataBody['timeGrains']>[number]>;
export type AnswersAgree = Agrees<WidgetData, WidgetAnswer>;
