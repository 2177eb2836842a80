import { evaluateJsFiles, type ModelFile } from '@tessera/semantic';
import { type FieldProblem, ValidationError } from '../../errors/domain-errors.ts';

/**
 * What a model file must pass before it is stored: a JavaScript file must evaluate in the
 * sandbox (no syntax error, no host access, within its time and memory), so that a file that
 * tries to reach the server is refused at upload, never kept. Other model errors (an unknown
 * member, say) are the model's to fix and are reported by compiling, as for YAML files.
 */
export async function checkModelFiles(files: readonly (ModelFile & { field: string })[]): Promise<void> {
  const js = files.filter((f) => /\.js$/i.test(f.path));
  if (js.length === 0) return;
  const evaluated = await evaluateJsFiles(js);
  const problems: FieldProblem[] = [];
  for (const f of js) {
    const error = evaluated.get(f.path)?.error;
    if (error) {
      const where = error.line === null ? f.path : `${f.path}:${error.line}`;
      problems.push({ field: f.field, message: `${where}: ${error.message}` });
    }
  }
  if (problems.length > 0) {
    throw new ValidationError(
      `Model file${problems.length > 1 ? 's' : ''} refused: ${problems.map((p) => p.message).join('; ')}`,
      problems,
    );
  }
}
