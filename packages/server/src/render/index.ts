/** Browser-free dashboard rendering: a dashboard to SVG, then to PNG or PDF (DESIGN.md "Notifications and rendering"). */
export { renderDashboard } from './dashboard.ts';
export { toPdf } from './pdf.ts';
export { toPng } from './png.ts';
export type * from './types.ts';
