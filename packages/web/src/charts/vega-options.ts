import type { EmbedOptions } from 'vega-embed';
import { expressionInterpreter } from 'vega-interpreter';

/**
 * vega-embed's options for every chart of the app: SVG, no action menu, and nothing the page's
 * Content-Security-Policy forbids. It has no 'unsafe-eval', so Vega parses expressions to an AST
 * and vega-interpreter evaluates them instead of compiling them to functions; vega-embed's and
 * vega-tooltip's style elements are off for the same policy (the stylesheets style the tooltip).
 */
export function vegaEmbedOptions(config: EmbedOptions['config']): EmbedOptions {
  return {
    ast: true,
    expr: expressionInterpreter,
    actions: false,
    renderer: 'svg',
    defaultStyle: false,
    tooltip: { disableDefaultStyle: true },
    config,
  };
}
