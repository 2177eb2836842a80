/** Prints a benchmark's two results, bare Fastify then Tessera, and the ratio of their rates. */
export function printRatio<R>(
  engine: string,
  base: R,
  ours: R,
  { describe, rate, digits }: { describe: (r: R) => string; rate: (r: R) => number; digits: number },
) {
  console.log(`${engine.padEnd(10)} bare Fastify: ${describe(base)}`);
  console.log(`${''.padEnd(10)} Tessera:      ${describe(ours)}`);
  console.log(`${''.padEnd(10)} ratio Tessera / bare = ${(rate(ours) / rate(base)).toFixed(digits)}`);
}
