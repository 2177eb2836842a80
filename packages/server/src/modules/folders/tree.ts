/** The folders of one deployment, held in memory to answer ancestry questions in one read. */
export interface TreeFolder {
  id: number;
  parent_id: number | null;
  name: string;
}

/** Deepest nesting allowed: a folder at the root has depth 1 (the reference caps depth with a 400). */
export const maxFolderDepth = 10;

export class FolderTree {
  private readonly byId = new Map<number, TreeFolder>();
  private readonly childIds = new Map<number | null, number[]>();

  constructor(rows: TreeFolder[]) {
    for (const row of rows) {
      this.byId.set(row.id, row);
      const siblings = this.childIds.get(row.parent_id) ?? [];
      siblings.push(row.id);
      this.childIds.set(row.parent_id, siblings);
    }
  }

  get(id: number): TreeFolder | undefined {
    return this.byId.get(id);
  }

  ids(): number[] {
    return [...this.byId.keys()];
  }

  children(id: number | null): number[] {
    return this.childIds.get(id) ?? [];
  }

  /** From the root down to and including `id`; stops on a cycle rather than looping forever. */
  ancestors(id: number): TreeFolder[] {
    const chain: TreeFolder[] = [];
    const seen = new Set<number>();
    let current = this.byId.get(id);
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      chain.unshift(current);
      current = current.parent_id === null ? undefined : this.byId.get(current.parent_id);
    }
    return chain;
  }

  /** True when `candidate` is `folder` itself or lies anywhere below it. */
  isSelfOrDescendant(candidate: number, folder: number): boolean {
    return this.ancestors(candidate).some((f) => f.id === folder);
  }

  depth(id: number): number {
    return this.ancestors(id).length;
  }

  /** Levels of the subtree rooted at `id`, counting `id` itself as 1. */
  height(id: number, seen = new Set<number>()): number {
    if (seen.has(id)) return 0;
    seen.add(id);
    let below = 0;
    for (const child of this.children(id)) below = Math.max(below, this.height(child, seen));
    return 1 + below;
  }

  /** Folder path entries (`folderPath` in the reference): root first, `id` last. */
  path(id: number | null): { id: number; name: string }[] {
    return id === null ? [] : this.ancestors(id).map((f) => ({ id: f.id, name: f.name }));
  }
}
