import type { List, Nodes, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';

/** One line of a text widget as the renderer draws it: its text, size and weight. */
export interface TextLine {
  line: number;
  /** Where the line's top is, in pixels from the tile's body. */
  y: number;
  text: string;
  size: number;
  weight: 'normal' | 'bold';
}

const bodySize = 12;
const headingSizes = [20, 17, 15, 13, 12, 12];
const maxLines = 60;

/**
 * A text widget's Markdown as lines a notification's image can draw (issue 23: the page renders
 * the Markdown, so the email must not show its `#` and `**`). Parsed with mdast (the parser
 * react-markdown uses on the page, CommonMark as there), then laid out as the page reads: headings larger and bold,
 * list items with bullets or numbers, code as is, paragraphs as their text with the marks
 * dropped, a blank line between blocks. Raw HTML is dropped, as the page's sanitiser does.
 * A heading widget (`config.variant === 'heading'`) is its text drawn as a heading.
 */
export function markdownLines(markdown: string, heading = false): TextLine[] {
  const blocks: { text: string; size: number; weight: TextLine['weight'] }[][] = [];
  for (const node of fromMarkdown(markdown).children) {
    const lines = blockLines(node, heading);
    if (lines.length > 0) blocks.push(lines);
  }
  const out: TextLine[] = [];
  let y = 2;
  blocks.forEach((block, i) => {
    if (i > 0) y += Math.round(bodySize * 0.6);
    for (const l of block) {
      out.push({ line: out.length, y, ...l, text: l.text === '' ? ' ' : l.text });
      y += Math.round(l.size * 1.4);
    }
  });
  return out.slice(0, maxLines);
}

function blockLines(
  node: RootContent,
  heading: boolean,
): { text: string; size: number; weight: TextLine['weight'] }[] {
  const body = (text: string) => ({
    text,
    size: heading ? headingSizes[0] : bodySize,
    weight: heading ? ('bold' as const) : ('normal' as const),
  });
  switch (node.type) {
    case 'heading':
      return [{ text: inline(node), size: headingSizes[node.depth - 1], weight: 'bold' }];
    case 'paragraph':
      return inline(node).split('\n').map(body);
    case 'list':
      return listLines(node, 0).map(body);
    case 'code':
      return node.value.split('\n').map(body);
    case 'blockquote':
      return node.children
        .flatMap((child) => blockLines(child, heading))
        .map((l) => ({ ...l, text: `│ ${l.text}` }));
    case 'thematicBreak':
      return [body('――――――――')];
    default:
      // Raw HTML, definitions, footnotes: nothing the page shows as text.
      return [];
  }
}

function listLines(list: List, depth: number): string[] {
  const indent = '   '.repeat(depth);
  return list.children.flatMap((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}.` : '•';
    return item.children.flatMap((child, j) => {
      if (child.type === 'list') return listLines(child, depth + 1);
      const text =
        child.type === 'paragraph'
          ? inline(child)
          : blockLines(child, false)
              .map((l) => l.text)
              .join(' ');
      return text
        .split('\n')
        .map((line, k) => (j === 0 && k === 0 ? `${indent}${marker} ${line}` : `${indent}   ${line}`));
    });
  });
}

/** A node's text with the marks dropped: emphasis, links (their text), inline code, breaks. */
function inline(node: Nodes): string {
  if (node.type === 'text' || node.type === 'inlineCode') return node.value;
  if (node.type === 'break') return '\n';
  if (node.type === 'image') return node.alt ?? '';
  if (node.type === 'html') return '';
  if ('children' in node) return (node.children as Nodes[]).map(inline).join('');
  return '';
}
