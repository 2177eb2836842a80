/**
 * An integer an engine sent as text (Snowflake, BigQuery, Databricks, Athena): a number where a
 * double holds it exactly, else a bigint, so that no digit is lost past 2^53.
 */
export function integerFromText(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}
