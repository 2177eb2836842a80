/** What a browser session is opened with (migration 0010-sign-in). */
export interface NewSession {
  tenantId: number;
  userId: number;
  hash: string;
  expiresAt: Date;
}
