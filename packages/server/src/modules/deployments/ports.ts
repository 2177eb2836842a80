import type { Principal } from '../../auth/principal.ts';

/** One model error as the data-model module reports it: its file and line when known. */
export interface ModelErrorView {
  fileName: string | null;
  line: number | null;
  message: string;
}

/**
 * What build-status asks of the data-model module (composition.ts wires its service): the branches
 * of a deployment, a branch's files, and the compile of a branch. The data-model module imports
 * this one, so the port keeps the dependency one way.
 */
export interface ModelBuilds {
  branches(p: Principal, deploymentId: number): Promise<{ items: { name: string }[] }>;
  listFiles(
    p: Principal,
    deploymentId: number,
    q: { branchName?: string; withContent?: boolean },
  ): Promise<{ items: { fileName: string; updatedAt: string; content?: string }[] }>;
  validate(
    p: Principal,
    deploymentId: number,
    q: { branchName?: string },
  ): Promise<{ valid: boolean; cubesCount: number; errors: ModelErrorView[] }>;
}

/** A line for the deployment's logs (modules/deployment-logs); never a secret or a bound value. */
export interface BuildLogLine {
  deploymentId: number;
  branch: string;
  kind: 'build';
  level: 'info' | 'error';
  message: string;
  details: Record<string, unknown>;
}

export interface BuildLog {
  write(line: BuildLogLine): void;
}
