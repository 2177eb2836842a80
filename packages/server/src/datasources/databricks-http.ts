import https from 'node:https';

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * One HTTPS request, its answer's status and text. A `timeout` without an answer is an error with
 * code ETIMEDOUT (the connection test's words for it); the signal aborts the request.
 */
export function requestText(url: URL, options: https.RequestOptions, body?: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error('Databricks timeout'), { code: 'ETIMEDOUT' })),
    );
    req.on('error', reject);
    req.end(body);
  });
}
