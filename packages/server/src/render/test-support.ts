const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text of every `<text>` element of an SVG, entities decoded: what a reader of the image sees. */
export function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) =>
    m[1].replace(/&(#\d+|[a-z]+);/g, (entity, name: string) =>
      name.startsWith('#') ? String.fromCharCode(Number(name.slice(1))) : (named[name] ?? entity),
    ),
  );
}
