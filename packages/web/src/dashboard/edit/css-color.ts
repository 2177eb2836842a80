/**
 * A CSS colour as the `#rrggbb` a native colour picker (`<input type="color">`, HTML's "valid
 * simple colour") takes, or null when it has none: empty, invalid, or not opaque (a picker would
 * drop the alpha). The browser's own parser does the work: a canvas's `fillStyle` reads back
 * serialised, `#rrggbb` for an opaque colour and `rgba(...)` otherwise (HTML canvas spec,
 * "serialization of a color").
 */
let context: CanvasRenderingContext2D | null | undefined;

export function cssColorToHex(value: string): string | null {
  const v = value.trim();
  if (v === '' || typeof document === 'undefined') return null;
  context ??= document.createElement('canvas').getContext('2d');
  if (!context) return null;
  // A sentinel first: an invalid colour leaves fillStyle as it was.
  context.fillStyle = '#000001';
  context.fillStyle = v;
  const read = String(context.fillStyle);
  if (read === '#000001' && v.toLowerCase() !== '#000001') return null;
  return /^#[0-9a-f]{6}$/.test(read) ? read : null;
}
