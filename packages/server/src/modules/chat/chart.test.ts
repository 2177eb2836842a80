import * as vega from 'vega';
import { compile } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { type ChartColumn, columnsFromSchema, pickChart } from './chart.ts';

/** Draws a spec with rows as `serviceSqlApi` returns them (numbers as text) and reads its scales. */
async function draw(spec: Record<string, unknown>, values: Record<string, string>[]) {
  const view = new vega.View(vega.parse(compile({ ...spec, data: { values } } as never).spec), {
    renderer: 'none',
  });
  await view.runAsync();
  return view;
}

const month: ChartColumn = { name: 'month', role: 'time', granularity: 'month' };
const year: ChartColumn = { name: 'year', role: 'time', granularity: 'year' };
const status: ChartColumn = { name: 'status', role: 'category' };
const country: ChartColumn = { name: 'country', role: 'category' };
const count: ChartColumn = { name: 'count', role: 'measure', title: 'Orders' };
const amount: ChartColumn = { name: 'amount', role: 'measure' };

describe('pickChart', () => {
  it('draws a single total as a big number', async () => {
    const spec = pickChart([count], { rowCount: 1, title: 'Orders' })!;
    expect(spec.mark).toMatchObject({ type: 'text' });
    expect(spec.data).toBeUndefined();
    await draw(spec, [{ count: '1234' }]);
  });

  it('states a measure in its format: a currency total in dollars, a currency axis too (issue 21)', async () => {
    const revenue: ChartColumn = { name: 'revenue', role: 'measure', format: 'currency' };
    const figure = pickChart([revenue], { rowCount: 1 })!;
    const view = await draw(figure, [{ revenue: '21866204.57' }]);
    const svg = await view.toSVG();
    expect(svg).toContain('$21,866,204.57');
    const share: ChartColumn = { name: 'share', role: 'measure', format: 'percent' };
    expect(await (await draw(pickChart([share], { rowCount: 1 })!, [{ share: '0.125' }])).toSVG()).toContain(
      '12.5%',
    );
    const line = pickChart([month, revenue], { rowCount: 2 })!;
    expect(line.encoding).toMatchObject({ y: { axis: { format: '$,.2s' } } });
    // A measure with no format stays a plain number.
    expect(await (await draw(pickChart([count], { rowCount: 1 })!, [{ count: '1234' }])).toSVG()).toContain(
      '>1,234<',
    );
  });

  it('draws time on a line, one line per category', async () => {
    const spec = pickChart([status, month, count], { rowCount: 4 })!;
    expect(spec.mark).toMatchObject({ type: 'line' });
    expect(spec.encoding).toMatchObject({
      x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' },
      y: { field: 'count', type: 'quantitative', title: 'Orders' },
      color: { field: 'status' },
    });
    const view = await draw(spec, [
      { status: 'a', month: '2024-01-01T00:00:00.000', count: '5' },
      { status: 'a', month: '2024-02-01T00:00:00.000', count: '50' },
    ]);
    expect(view.scale('y').domain()).toEqual([0, 50]);
  });

  it('draws categories as bars sorted by the measure', async () => {
    const spec = pickChart([status, count], { rowCount: 3 })!;
    expect(spec.mark).toMatchObject({ type: 'bar' });
    expect(spec.encoding).toMatchObject({ x: { field: 'status', sort: '-y' }, y: { field: 'count' } });
    const view = await draw(spec, [
      { status: 'a', count: '100' },
      { status: 'b', count: '9' },
    ]);
    expect(view.scale('y').domain()).toEqual([0, 100]);
  });

  it('draws compared periods as grouped, coloured bars', async () => {
    const alone = pickChart([year, count], { rowCount: 2, comparePeriods: true })!;
    expect(alone.mark).toMatchObject({ type: 'bar' });
    expect(alone.encoding).toMatchObject({
      x: { field: 'year', type: 'ordinal', timeUnit: 'year' },
      color: { field: 'year' },
    });
    const grouped = pickChart([country, year, count], { rowCount: 4, comparePeriods: true })!;
    expect(grouped.encoding).toMatchObject({
      x: { field: 'country' },
      xOffset: { field: 'year' },
      color: { field: 'year' },
    });
    await draw(grouped, [
      { country: 'FR', year: '2023-01-01T00:00:00.000', count: '3' },
      { country: 'FR', year: '2024-01-01T00:00:00.000', count: '4' },
    ]);
  });

  it('draws two categories, or several measures, side by side', async () => {
    const twoCategories = pickChart([status, country, count], { rowCount: 4 })!;
    expect(twoCategories.encoding).toMatchObject({ x: { field: 'status' }, xOffset: { field: 'country' } });
    const twoMeasures = pickChart([status, count, amount], { rowCount: 2 })!;
    expect(twoMeasures.transform).toEqual([{ fold: ['count', 'amount'], as: ['measure', 'value'] }]);
    const view = await draw(twoMeasures, [{ status: 'a', count: '3', amount: '70' }]);
    expect(view.scale('y').domain()).toEqual([0, 70]);
  });

  it('has no chart for rows it cannot draw', () => {
    expect(pickChart([status], { rowCount: 3 })).toBeNull();
    expect(pickChart([status, country, { name: 'x', role: 'category' }, count], { rowCount: 3 })).toBeNull();
    expect(pickChart([count], { rowCount: 5 })).toBeNull();
  });

  it('reads roles from a SQL-API schema', () => {
    expect(
      columnsFromSchema([
        { name: 'm', column_type: 'Timestamp' },
        { name: 's', column_type: 'Utf8' },
        { name: 'n', column_type: 'Int64' },
        { name: 'a', column_type: 'Float64' },
      ]).map((c) => c.role),
    ).toEqual(['time', 'category', 'measure', 'measure']);
  });
});
