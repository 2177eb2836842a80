import type { Static } from 'typebox';
import type { FieldProblem } from '../../errors/domain-errors.ts';
import type { AlertCondition, AlertQuery } from './schemas.ts';

type Query = Static<typeof AlertQuery>;
type Condition = Static<typeof AlertCondition>;
export type Members = { measures: Set<string>; dimensions: Map<string, string> };

/**
 * What the body's shape cannot say, each problem naming its field: the members must be the
 * model's (as the owner sees them), `changeBy` needs a time dimension to have periods, and each
 * condition its own number.
 */
export function queryProblems(query: Query, condition: Condition, members: Members): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field: `body/${field}`, message });
  if (!members.measures.has(query.measure))
    problem('query/measure', `${query.measure} is no measure of this deployment's model`);
  query.filters?.forEach((f, i) => {
    if (!members.measures.has(f.member) && !members.dimensions.has(f.member))
      problem(`query/filters/${i}/member`, `${f.member} is no member of this deployment's model`);
  });
  const td = query.timeDimension ?? null;
  if (td && members.dimensions.get(td.dimension) !== 'time')
    problem(
      'query/timeDimension/dimension',
      `${td.dimension} is no time dimension of this deployment's model`,
    );
  if (condition.type === 'changeBy') {
    if (condition.percent == null) problem('condition/percent', 'is required when type is changeBy');
    if (!td)
      problem(
        'query/timeDimension',
        'is required when the condition is changeBy: it defines the periods compared',
      );
  } else if (condition.threshold == null) {
    problem('condition/threshold', `is required when type is ${condition.type}`);
  }
  return problems;
}

export const emailShape = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
