import type { ChatLine } from './types.ts';

/**
 * After a resubscription the server may replay the run from its start (DESIGN.md "Chat agent")
 * or continue from its current point (spec 4.6, "Idempotency"). Lines already read are skipped
 * while the new connection repeats them; a complete (non-delta) version of a message already
 * read is let through, since applying it again changes nothing. Deltas are never applied twice.
 */
export class ReplayFilter {
  private readonly read: { text: string; id: string | undefined }[] = [];
  private position = 0;
  private replaying = false;

  /** A new connection starts: its first lines may repeat what was read. */
  restart(): void {
    this.position = 0;
    this.replaying = this.read.length > 0;
  }

  /** Whether `line` (its text `text`) is to be applied, and records it when it is new. */
  isNew(text: string, line: ChatLine): boolean {
    if (this.replaying && this.position < this.read.length) {
      const expected = this.read[this.position];
      if (expected.text === text) {
        this.position++;
        return false;
      }
      if (!line.isDelta && line.id !== undefined && expected.id === line.id) {
        this.position++;
        return true;
      }
    }
    this.replaying = false;
    this.read.push({ text, id: line.id });
    return true;
  }
}
