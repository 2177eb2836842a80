import { sha256 } from '../../crypto/secrets.ts';

/** Content hash of one model file, as `file-hashes` reports it: SHA-256 of the UTF-8 text, hex. */
export const fileHash = (content: string): string => sha256(content);

/** One hash for a branch's whole file set (`FinishUploadResponse.lastHash`): order-independent. */
export function treeHash(files: readonly { path: string; content: string }[]): string {
  const lines = files.map((f) => `${f.path}\0${fileHash(f.content)}`).sort();
  return sha256(lines.join('\n'));
}
