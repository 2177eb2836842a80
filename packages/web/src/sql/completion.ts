import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import type { SQLNamespace } from '@codemirror/lang-sql';
import {
  type Catalogue,
  type CatalogueMember,
  type CatalogueTable,
  memberDetail,
  tablesIn,
} from './catalogue.ts';

/**
 * Completion's `info`, drawn when an option is selected: the title in bold, then the
 * description and how to use the name (a function, so that it is built only in a browser).
 */
function info(title: string, lines: (string | undefined)[]): () => Node {
  return () => {
    const box = document.createElement('div');
    const heading = document.createElement('strong');
    heading.textContent = title;
    box.append(heading);
    for (const line of lines) {
      if (!line) continue;
      const p = document.createElement('p');
      p.textContent = line;
      box.append(p);
    }
    return box;
  };
}

function memberInfo(member: CatalogueMember) {
  return info(member.title, [
    member.description,
    member.kind === 'measure' ? `Aggregate it with MEASURE(${member.column}).` : undefined,
    member.kind === 'segment' ? `A filter: WHERE ${member.column}.` : undefined,
    member.format ? `Format: ${member.format}` : undefined,
  ]);
}

function tableInfo(table: CatalogueTable) {
  return info(table.title, [table.description, `A ${table.kind} with ${table.members.length} members.`]);
}

/** CodeMirror's completion icons: measures as constants, dimensions as properties. */
const iconOf: Record<CatalogueMember['kind'], string> = {
  measure: 'constant',
  dimension: 'property',
  segment: 'enum',
};

export function memberCompletion(member: CatalogueMember, boost = 0): Completion {
  return {
    label: member.column,
    type: iconOf[member.kind],
    detail: `${memberDetail(member)} · ${member.table}`,
    info: memberInfo(member),
    boost,
  };
}

export function tableCompletion(table: CatalogueTable): Completion {
  return { label: table.name, type: 'class', detail: table.kind, info: tableInfo(table), boost: 1 };
}

/**
 * lang-sql's schema: each cube and view a table whose columns are its members, so that `FROM o`
 * completes `orders` and `orders.` (or an alias of it) completes its members.
 */
export function sqlSchema(catalogue: Catalogue): SQLNamespace {
  return Object.fromEntries(
    catalogue.tables.map((table) => [
      table.name,
      { self: tableCompletion(table), children: table.members.map((m) => memberCompletion(m)) },
    ]),
  );
}

/**
 * Members without their table (`SELECT stat` → `status`), which lang-sql completes only for one
 * default table: the members of the tables the query reads, ranked first, then every other
 * table's, so that a query written SELECT-first completes before its FROM is typed. Inside
 * `MEASURE(` only measures are offered. After a `.` lang-sql's schema answers instead.
 */
export function memberCompletionSource(catalogue: () => Catalogue | null) {
  return (context: CompletionContext): CompletionResult | null => {
    const model = catalogue();
    if (!model) return null;
    const word = context.matchBefore(/[A-Za-z_][\w$]*/);
    const before = context.state.sliceDoc(
      Math.max(0, (word?.from ?? context.pos) - 200),
      word?.from ?? context.pos,
    );
    // After a `.` lang-sql's schema answers; after FROM or JOIN a table is wanted, not a member.
    if (/[.]\s*$/.test(before) || /"$/.test(before) || /\b(?:from|join)\s+$/i.test(before)) return null;
    if (!word && !context.explicit) return null;
    const measuresOnly = /\bmeasure\s*\(\s*$/i.test(before);
    const read = tablesIn(context.state.doc.toString(), model);
    const ordered = [...read, ...model.tables.filter((t) => !read.includes(t))];
    const seen = new Set<string>();
    const options: Completion[] = [];
    for (const table of ordered) {
      const boost = read.includes(table) ? 2 : 0;
      for (const member of table.members) {
        if (measuresOnly && member.kind !== 'measure') continue;
        // One option per column name: the first table that has it (a read one) describes it.
        if (seen.has(member.column)) continue;
        seen.add(member.column);
        options.push(memberCompletion(member, boost));
      }
    }
    return { from: word?.from ?? context.pos, options, validFor: /^[\w$]*$/ };
  };
}
