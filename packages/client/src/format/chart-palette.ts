/**
 * The category colours that follow a dashboard theme's primary colour (spec 2.2 `primaryColor`),
 * shared by the web viewer and the rendered images (notifications, exports) so that a legend in an
 * image has the colours a reader sees on the page. They stay apart from a blue primary colour and
 * from each other; Vega's own tableau10 starts with a blue (#4c78a8) that the demo's #3b6fd8 cannot
 * be told apart from.
 */
export const categoryPalette: readonly string[] = [
  '#f59f3a',
  '#2bb0a0',
  '#e5577a',
  '#8b6fd8',
  '#7fb13d',
  '#d4b22a',
  '#5aa3d6',
  '#a7715a',
  '#9aa5b1',
];
