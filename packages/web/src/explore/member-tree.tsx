import { useId, useMemo, useState } from 'react';
import { type CubeNode, type ExploreModel, type Folder, type Member, matches, typeLabel } from './model.ts';

export interface MemberTreeProps {
  model: ExploreModel;
  /** Members in the query (measures, dimensions, time dimensions, segments). */
  chosen: ReadonlySet<string>;
  onToggle: (member: Member) => void;
}

/**
 * The model as a searchable tree: each cube and view, its folders (views) and hierarchies, then
 * its measures, dimensions and segments, with titles, descriptions and types. A member is a
 * toggle: pressed when it is in the query.
 */
export function MemberTree({ model, chosen, onToggle }: MemberTreeProps) {
  const [search, setSearch] = useState('');
  const searchId = useId();
  const shown = useMemo(
    () =>
      model.cubes
        .map((cube) => ({ cube, found: allMembers(cube).filter((m) => matches(m, search)) }))
        .filter(({ found }) => found.length > 0),
    [model, search],
  );
  return (
    <nav className="ex-tree" aria-label="Model">
      <div className="ex-tree-search">
        <label htmlFor={searchId} className="visually-hidden">
          Search the model
        </label>
        <input
          id={searchId}
          type="search"
          placeholder="Search members…"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
      </div>
      {shown.length === 0 && <p className="muted ex-tree-none">No member matches “{search}”.</p>}
      <ul className="ex-tree-cubes">
        {shown.map(({ cube, found }) => (
          <CubeBranch
            key={cube.name}
            cube={cube}
            found={new Set(found.map((m) => m.name))}
            searching={search.trim() !== ''}
            model={model}
            chosen={chosen}
            onToggle={onToggle}
          />
        ))}
      </ul>
    </nav>
  );
}

function allMembers(cube: CubeNode): Member[] {
  return [...cube.measures, ...cube.dimensions, ...cube.segments];
}

function CubeBranch({
  cube,
  found,
  searching,
  model,
  chosen,
  onToggle,
}: {
  cube: CubeNode;
  found: ReadonlySet<string>;
  searching: boolean;
  model: ExploreModel;
  chosen: ReadonlySet<string>;
  onToggle: (member: Member) => void;
}) {
  const inQuery = allMembers(cube).some((m) => chosen.has(m.name));
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = open ?? (searching || inQuery);
  const listId = useId();
  const pick = (names: readonly string[]) =>
    names.map((n) => model.members.get(n)).filter((m): m is Member => m !== undefined && found.has(m.name));
  const inFolders = new Set(flatFolders(cube.folders));
  const row = (m: Member) => (
    <MemberRow key={m.name} member={m} chosen={chosen.has(m.name)} onToggle={onToggle} />
  );
  const group = (label: string, members: Member[]) =>
    members.length > 0 && (
      <li className="ex-tree-group">
        <span className="ex-tree-group-label">{label}</span>
        <ul>{members.map(row)}</ul>
      </li>
    );
  const rest = (list: Member[]) => list.filter((m) => found.has(m.name) && !inFolders.has(m.name));
  return (
    <li className="ex-tree-cube">
      <button
        type="button"
        className="ex-tree-toggle"
        aria-expanded={expanded}
        aria-controls={listId}
        onClick={() => setOpen(!expanded)}
        title={cube.description ?? undefined}
      >
        <span className="ex-caret" aria-hidden="true">
          {expanded ? '▾' : '▸'}
        </span>
        <span className="ex-tree-cube-title">{cube.title}</span>
        <span className="ex-badge">{cube.type}</span>
      </button>
      {expanded && (
        <ul id={listId} className="ex-tree-members">
          {cube.description && <li className="ex-tree-description muted">{cube.description}</li>}
          {cube.folders.map((f) => (
            <FolderBranch key={f.name} folder={f} pick={pick} row={row} />
          ))}
          {cube.hierarchies
            .filter((h) => pick(h.levels).length > 0)
            .map((h) => (
              <li key={h.name} className="ex-tree-group">
                <span className="ex-tree-group-label">Hierarchy: {h.title}</span>
                <ul>{pick(h.levels).map(row)}</ul>
              </li>
            ))}
          {group('Measures', rest(cube.measures))}
          {group('Dimensions', rest(cube.dimensions))}
          {group('Segments', rest(cube.segments))}
        </ul>
      )}
    </li>
  );
}

function flatFolders(folders: readonly Folder[]): string[] {
  return folders.flatMap((f) => [...f.members, ...flatFolders(f.folders)]);
}

function FolderBranch({
  folder,
  pick,
  row,
}: {
  folder: Folder;
  pick: (names: readonly string[]) => Member[];
  row: (m: Member) => React.ReactNode;
}) {
  const members = pick(folder.members);
  const inner = folder.folders.filter((f) => pick(flatFolders([f])).length > 0);
  if (members.length === 0 && inner.length === 0) return null;
  return (
    <li className="ex-tree-group ex-tree-folder">
      <span className="ex-tree-group-label">📁 {folder.name}</span>
      <ul>
        {inner.map((f) => (
          <FolderBranch key={f.name} folder={f} pick={pick} row={row} />
        ))}
        {members.map(row)}
      </ul>
    </li>
  );
}

function MemberRow({
  member,
  chosen,
  onToggle,
}: {
  member: Member;
  chosen: boolean;
  onToggle: (member: Member) => void;
}) {
  return (
    <li>
      <button
        type="button"
        className={`ex-member ex-member-${member.kind}`}
        aria-pressed={chosen}
        onClick={() => onToggle(member)}
        title={`${member.name}${member.description ? `\n${member.description}` : ''}`}
      >
        <span className="ex-member-check" aria-hidden="true">
          {chosen ? '✓' : ''}
        </span>
        <span className="ex-member-text">
          <span className="ex-member-title">{member.title}</span>
          {member.description && <span className="ex-member-description">{member.description}</span>}
        </span>
        <span className={`ex-badge ex-badge-${member.kind}`}>{typeLabel(member)}</span>
      </button>
    </li>
  );
}
