/** What the model cache reads of a deployment's model files (modules/data-model owns them). */
export interface ModelFiles {
  files(deploymentId: number, branch: string): Promise<{ path: string; content: string; updated_at: Date }[]>;
}
