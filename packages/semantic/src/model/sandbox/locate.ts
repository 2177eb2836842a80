import { isRecord, type Raw } from '../raw.ts';
import { setLocation } from '../yaml.ts';
import type { JsDefinition } from './run.ts';

const SECTIONS = [
  'measures',
  'dimensions',
  'segments',
  'joins',
  'preAggregations',
  'pre_aggregations',
  'hierarchies',
  'folders',
];

/**
 * Definitions of one JavaScript file as the YAML pipeline takes them (`{cubes, views}` with
 * `{name, ...}` entries), each object located: the cube at its `cube(` call, its top-level keys
 * and its members at the first line after it that writes `key:` (model files are written one
 * key per line; a member found nowhere keeps its section's line).
 */
export function jsDocument(file: string, content: string, definitions: readonly JsDefinition[]) {
  const lines = content.split('\n');
  const starts = definitions.map((d) => d.line ?? 1).sort((a, b) => a - b);
  const doc: { cubes: Raw[]; views: Raw[] } = { cubes: [], views: [] };
  for (const d of definitions) {
    const from = d.line ?? 1;
    const to = starts.find((s) => s > from) ?? lines.length + 1;
    const find = (key: string, after: number): number | null => {
      const pattern = new RegExp(`^\\s*(['"\`]?)${key.replace(/[$]/g, '\\$')}\\1\\s*:`);
      for (let i = after; i < to && i <= lines.length; i++) if (pattern.test(lines[i - 1])) return i;
      return null;
    };
    const raw: Raw = { name: d.name, ...d.definition };
    const keyLines = new Map<string, number>();
    for (const key of Object.keys(d.definition)) {
      const line = find(key, from);
      if (line !== null) keyLines.set(key, line);
    }
    setLocation(raw, { file, line: d.line, keyLines });
    for (const section of SECTIONS) {
      const value = d.definition[section];
      const sectionLine = keyLines.get(section) ?? d.line;
      const members = isRecord(value)
        ? Object.entries(value)
        : Array.isArray(value)
          ? [...value.entries()]
          : [];
      for (const [name, member] of members) {
        if (!isRecord(member)) continue;
        const line = typeof name === 'string' ? find(name, sectionLine ?? from) : null;
        setLocation(member, { file, line: line ?? sectionLine, keyLines: new Map() });
      }
    }
    (d.kind === 'cube' ? doc.cubes : doc.views).push(raw);
  }
  return doc;
}
