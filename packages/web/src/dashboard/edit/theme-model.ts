import type { DashboardDraft, DashboardTheme } from '@tessera/dashboard';

/**
 * The theme of spec 2.2 as the editor's fields: each leaf of the theme (all strings), the CSS
 * property its value must be valid for (checked with `CSS.supports`, so that a value the viewer
 * would drop is refused beside its field instead), and the group it is shown in.
 */
export interface ThemeField {
  path: string;
  label: string;
  /** The CSS property the value is checked against; null: free text (themeId). */
  css: string | null;
  group: 'General' | 'Dashboard' | 'Widgets' | 'Widget titles and text' | 'Controls';
}

const border = (at: string, group: ThemeField['group']): ThemeField[] => [
  { path: `${at}.border.color`, label: 'Border color', css: 'border-color', group },
  { path: `${at}.border.width`, label: 'Border width', css: 'border-width', group },
  { path: `${at}.border.style`, label: 'Border style', css: 'border-style', group },
  { path: `${at}.border.radius`, label: 'Corner radius', css: 'border-radius', group },
];
const title = (at: string, group: ThemeField['group'], what: string): ThemeField[] => [
  { path: `${at}.title.color`, label: `${what} color`, css: 'color', group },
  { path: `${at}.title.fontFamily`, label: `${what} font`, css: 'font-family', group },
  { path: `${at}.title.fontSize`, label: `${what} size`, css: 'font-size', group },
  { path: `${at}.title.fontWeight`, label: `${what} weight`, css: 'font-weight', group },
];

export const themeFields: readonly ThemeField[] = [
  { path: 'primaryColor', label: 'Primary color', css: 'color', group: 'General' },
  { path: 'backgroundColor', label: 'Background color', css: 'background-color', group: 'General' },
  { path: 'fontFamily', label: 'Font', css: 'font-family', group: 'General' },
  { path: 'themeId', label: 'Theme id', css: null, group: 'General' },
  {
    path: 'dashboard.backgroundColor',
    label: 'Background color',
    css: 'background-color',
    group: 'Dashboard',
  },
  { path: 'dashboard.padding', label: 'Padding', css: 'padding', group: 'Dashboard' },
  { path: 'widgets.backgroundColor', label: 'Background color', css: 'background-color', group: 'Widgets' },
  { path: 'widgets.margin', label: 'Margin', css: 'margin', group: 'Widgets' },
  { path: 'widgets.padding', label: 'Padding', css: 'padding', group: 'Widgets' },
  ...border('widgets', 'Widgets'),
  ...title('widgets', 'Widget titles and text', 'Title'),
  { path: 'widgets.text.color', label: 'Text color', css: 'color', group: 'Widget titles and text' },
  {
    path: 'widgets.text.secondaryColor',
    label: 'Secondary text color',
    css: 'color',
    group: 'Widget titles and text',
  },
  {
    path: 'widgets.text.fontFamily',
    label: 'Text font',
    css: 'font-family',
    group: 'Widget titles and text',
  },
  {
    path: 'widgets.text.codeFontFamily',
    label: 'Code font',
    css: 'font-family',
    group: 'Widget titles and text',
  },
  { path: 'controls.backgroundColor', label: 'Background color', css: 'background-color', group: 'Controls' },
  { path: 'controls.padding', label: 'Padding', css: 'padding', group: 'Controls' },
  ...border('controls', 'Controls'),
  ...title('controls', 'Controls', 'Label'),
];

type Tree = { [key: string]: unknown };

/** The theme's value at a dotted path, or ''. */
export function themeValue(theme: DashboardTheme | null | undefined, path: string): string {
  let at: unknown = theme;
  for (const key of path.split('.')) at = at && typeof at === 'object' ? (at as Tree)[key] : undefined;
  return typeof at === 'string' ? at : '';
}

/** The draft with the theme's value at `path` set, or removed when empty (with emptied sections). */
export function setThemeValue(draft: DashboardDraft, path: string, value: string): DashboardDraft {
  const keys = path.split('.');
  const set = (node: Tree | null | undefined, i: number): Tree | undefined => {
    const copy: Tree = { ...(node ?? {}) };
    const key = keys[i];
    if (i === keys.length - 1) {
      if (value === '') delete copy[key];
      else copy[key] = value;
    } else {
      const child = set(copy[key] as Tree | undefined, i + 1);
      if (child) copy[key] = child;
      else delete copy[key];
    }
    return Object.keys(copy).length > 0 ? copy : undefined;
  };
  const theme = set(draft.theme as Tree | null | undefined, 0) as DashboardTheme | undefined;
  const { theme: _old, ...rest } = draft;
  return theme ? { ...rest, theme } : rest;
}

/** Why a value cannot be used for a field, or null when it can (empty: the default). */
export function themeProblem(field: ThemeField, value: string): string | null {
  const v = value.trim();
  if (v === '') return null;
  if (v.length > 1000) return 'At most 1000 characters';
  if (field.css === null) return null;
  // `CSS.supports` parses the value as the browser would; a var() or a keyword like "inherit"
  // parses too, which is as the viewer would take it.
  if (typeof CSS !== 'undefined' && !CSS.supports(field.css, v))
    return field.css.includes('color')
      ? `Not a CSS color (e.g. #1f6feb, rgb(31 111 235), teal)`
      : `Not a valid CSS ${field.css} value`;
  return null;
}
