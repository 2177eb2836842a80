/** One file of a data model project: its path inside the project and its text. */
export interface ModelFile {
  readonly path: string;
  readonly content: string;
}
