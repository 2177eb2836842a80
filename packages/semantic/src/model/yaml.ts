import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/**
 * YAML to plain values, remembering the line of every mapping and of every key inside it, so
 * that later passes can report `file:line` for a member without carrying YAML nodes around.
 */
export interface Located {
  readonly file: string;
  readonly line: number | null;
  readonly keyLines: ReadonlyMap<string, number>;
}

const locations = new WeakMap<object, Located>();

/** Records where an object of a model file was written (JavaScript models locate their own). */
export function setLocation(value: object, located: Located): void {
  locations.set(value, located);
}

export function locationOf(value: unknown): Located | undefined {
  return typeof value === 'object' && value !== null ? locations.get(value) : undefined;
}

export interface ParsedFile {
  readonly file: string;
  readonly value: unknown;
  readonly errors: readonly { line: number | null; message: string }[];
}

export function parseYamlFile(file: string, content: string): ParsedFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(content, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number | undefined): number | null =>
    offset === undefined ? null : lineCounter.linePos(offset).line;
  const errors = doc.errors.map((e) => ({ line: lineAt(e.pos[0]), message: e.message.split('\n')[0] }));
  const convert = (node: unknown): unknown => {
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      const keyLines = new Map<string, number>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        out[key] = convert(pair.value);
        const line = lineAt((pair.key as Node | null)?.range?.[0]);
        if (line !== null) keyLines.set(key, line);
      }
      locations.set(out, { file, line: lineAt(node.range?.[0]), keyLines });
      return out;
    }
    if (isSeq(node)) {
      const out = node.items.map(convert);
      locations.set(out, { file, line: lineAt(node.range?.[0]), keyLines: new Map() });
      return out;
    }
    if (isScalar(node)) return node.value;
    return node ?? null;
  };
  return { file, value: errors.length > 0 ? null : convert(doc.contents), errors };
}
