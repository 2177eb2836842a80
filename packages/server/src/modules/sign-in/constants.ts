/** Where the browser session's own routes live (DESIGN.md "Web app and sessions"). */
export const sessionPath = '/api/v1/session';
