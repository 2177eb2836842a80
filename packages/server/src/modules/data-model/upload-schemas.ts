import { Type } from 'typebox';
import { BranchName, FilePath } from './schemas.ts';

/**
 * The reference's Data Model Uploads group (platform-api.yaml: `upload/start`, `upload/file`,
 * `upload/finish`, `file-hashes`). `live` and `useDeployProjectRoot` are accepted for the Cube CLI
 * and have no effect: every branch is live and paths are already project-relative.
 */
export const UploadQuery = Type.Object({
  live: Type.Optional(Type.Boolean()),
  branchName: Type.Optional(BranchName),
  useDeployProjectRoot: Type.Optional(Type.Boolean()),
});

const FileHash = Type.Object({ hash: Type.String({ minLength: 1, maxLength: 128 }) });
export const FileHashesResponse = Type.Record(Type.String(), FileHash, {
  description: 'Map of project-relative file path to its content hash (SHA-256, hex)',
});

const TransactionId = Type.String({ minLength: 1, maxLength: 100 });
export const StartUploadResponse = Type.Object({
  transaction: Type.Object({ id: Type.String() }),
  deploymentName: Type.String(),
});

/** The reference sends `file` as multipart binary; here it is the file's UTF-8 text in JSON. */
export const UploadFileBody = Type.Object({
  transaction: TransactionId,
  fileName: FilePath,
  file: Type.String({ maxLength: 1_000_000, description: 'The file content (UTF-8 text)' }),
});

export const FinishUploadBody = Type.Object({
  transaction: Type.Object({ id: TransactionId }),
  files: Type.Record(Type.String({ minLength: 1, maxLength: 500 }), FileHash, {
    maxProperties: 5_000,
    description: 'Every file of the project (path -> {hash}); branch files not listed are pruned',
  }),
  autoRemoveFiles: Type.Optional(Type.Union([Type.Boolean({ default: true }), Type.Null()])),
  awaitGitOperations: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  commitMessage: Type.Optional(Type.Union([Type.String({ maxLength: 1_000 }), Type.Null()])),
});
export const FinishUploadResponse = Type.Object({ lastHash: Type.Union([Type.String(), Type.Null()]) });
