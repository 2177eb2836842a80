import type { CSSProperties } from 'react';
import type { DashboardTheme } from '../dashboard/types.ts';
import type { EmbedTheme } from './session.ts';

/**
 * The session's `embedTheme` (spec 4.3: `primaryColor`, `font`, `chat.inputColor`,
 * `analyticsChat`), applied over the dashboard's own theme (spec 2.2): the host application's
 * brand wins where it says something. Values come from the host's server through the signed token,
 * yet are still checked with `CSS.supports` so that a typo is ignored rather than half-applied.
 */

const supported = (property: string, value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '' && CSS.supports(property, value);

const color = (value: string | null | undefined) => (supported('color', value) ? value : undefined);

/** A font name alone (`Inter`) is quoted; a list (`Inter, sans-serif`) is used as written. */
export function fontFamilyOf(font: string | null | undefined): string | undefined {
  if (typeof font !== 'string' || font.trim() === '') return undefined;
  const family = /[,'"]/.test(font) ? font : `"${font.trim()}"`;
  return supported('font-family', family) ? `${family}, Inter, system-ui, sans-serif` : undefined;
}

/** CSS custom properties on the embed page's root, for the page's own elements and a chat panel. */
export function embedThemeStyle(theme: EmbedTheme | null): CSSProperties {
  const vars: Record<string, string | undefined> = {
    '--tessera-primary': color(theme?.primaryColor),
    '--tessera-font': fontFamilyOf(theme?.font),
    '--tessera-chat-input-color': color(theme?.chat?.inputColor),
    '--tessera-chat-background': color(theme?.analyticsChat?.backgroundColor),
    '--tessera-chat-input-background': color(theme?.analyticsChat?.chatInput?.backgroundColor),
    '--tessera-chat-input-border': color(theme?.analyticsChat?.chatInput?.borderColor),
  };
  const style: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars)) if (value !== undefined) style[name] = value;
  if (style['--tessera-font']) style.fontFamily = style['--tessera-font'];
  return style as CSSProperties;
}

/**
 * The embed theme as a dashboard theme (spec 2.2 shape) for DashboardView's `theme`, which lays it
 * over the dashboard's own: the primary colour, and the font everywhere the dashboard names one.
 */
export function embedDashboardTheme(theme: EmbedTheme | null): DashboardTheme | undefined {
  const primaryColor = color(theme?.primaryColor);
  const fontFamily = fontFamilyOf(theme?.font);
  if (!primaryColor && !fontFamily) return undefined;
  const font = fontFamily ? { fontFamily } : undefined;
  return {
    ...(primaryColor ? { primaryColor } : {}),
    ...(fontFamily ? { fontFamily, widgets: { text: font, title: font }, controls: { title: font } } : {}),
  };
}
