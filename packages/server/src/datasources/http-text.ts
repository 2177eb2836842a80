import http from 'node:http';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * One request of an engine's HTTP protocol (Trino's, Snowflake's, BigQuery's, Databricks'): its
 * answer's status and text, gunzipped where the server compressed it. A `timeout` without an
 * answer is an error with code ETIMEDOUT, named for `engine` (the connection test's words for it);
 * the signal aborts the request.
 */
export function requestText(
  engine: string,
  url: URL,
  options: https.RequestOptions,
  body?: string,
): Promise<HttpAnswer> {
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const raw = Buffer.concat(chunks);
          const data = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, text: data.toString('utf8') });
        } catch (error) {
          reject(error);
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error(`${engine} timeout`), { code: 'ETIMEDOUT' })),
    );
    req.on('error', reject);
    req.end(body);
  });
}
