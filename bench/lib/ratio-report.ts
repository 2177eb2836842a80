/**
 * Prints a benchmark's two results, the baseline (bare Fastify unless `labels` names another)
 * then Tessera, and the ratio of their rates.
 */
export function printRatio<R>(
  engine: string,
  base: R,
  ours: R,
  {
    describe,
    rate,
    digits,
    labels = { base: 'bare Fastify', ours: 'Tessera', ratio: 'ratio Tessera / bare' },
  }: {
    describe: (r: R) => string;
    rate: (r: R) => number;
    digits: number;
    labels?: { base: string; ours: string; ratio: string };
  },
) {
  const width = Math.max(labels.base.length, labels.ours.length) + 1;
  console.log(`${engine.padEnd(10)} ${`${labels.base}:`.padEnd(width)} ${describe(base)}`);
  console.log(`${''.padEnd(10)} ${`${labels.ours}:`.padEnd(width)} ${describe(ours)}`);
  console.log(`${''.padEnd(10)} ${labels.ratio} = ${(rate(ours) / rate(base)).toFixed(digits)}`);
}
