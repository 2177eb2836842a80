/** What the model cache reads of a deployment's model files (modules/data-model owns them). */
export interface ModelFiles {
  files(deploymentId: number, branch: string): Promise<{ path: string; content: string; updated_at: Date }[]>;
}

/**
 * Where the data API writes its log lines (modules/deployment-logs, issue 25 item 1): a query run
 * or refused, a model compiled. A line names members, durations, row counts and error codes;
 * never SQL text, filter values or a bound parameter, any of which could be a secret.
 */
export interface DataLog {
  write(line: {
    deploymentId: number;
    branch: string;
    kind: 'query' | 'build';
    level: 'info' | 'error';
    message: string;
    details: Record<string, unknown>;
  }): void;
}
