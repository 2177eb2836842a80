import { type FSWatcher, watch } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { type SyncResult, syncModelDir } from './model-dir.ts';

/** Editors write a file in several steps; one sync after the burst settles. */
const DEBOUNCE_MS = 150;
const POLL_MS = 1_000;

export interface ModelDirWatcher {
  /** Stops watching and waits for a sync in flight, so that the store can close after it. */
  close(): Promise<void>;
}

/**
 * Development mode of `TESSERA_MODEL_DIR` ("reload it on change in development"): a
 * recursive `fs.watch` of the directory, or polling every second where recursive watching is not
 * available, re-syncs the demo deployment's `main` files after each change. Syncs never overlap:
 * a change during a sync schedules one more.
 */
export function watchModelDir(
  db: Db,
  deploymentId: number,
  dir: string,
  log: FastifyBaseLogger,
): ModelDirWatcher {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const sync = () => {
    timer = null;
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = syncModelDir(db, deploymentId, dir)
      .then((r) => logSync(log, dir, r))
      .catch((err) => log.error({ err, dir }, 'model directory: sync failed'))
      .finally(() => {
        running = null;
        if (again && !closed) {
          again = false;
          schedule();
        }
      });
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(sync, DEBOUNCE_MS);
  };

  let watcher: FSWatcher | null = null;
  let poll: NodeJS.Timeout | null = null;
  try {
    watcher = watch(dir, { recursive: true }, schedule);
    watcher.on('error', (err) => log.error({ err, dir }, 'model directory: watcher failed'));
  } catch {
    // ERR_FEATURE_UNAVAILABLE_ON_PLATFORM: poll instead; the sync writes only real changes.
    poll = setInterval(sync, POLL_MS);
  }
  return {
    async close() {
      closed = true;
      watcher?.close();
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** One line per reload that changed something (or the first), and every compile error with file and line. */
export function logSync(log: FastifyBaseLogger, dir: string, r: SyncResult, initial = false) {
  if (!initial && r.written.length === 0 && r.removed.length === 0) return;
  log.info({ dir, written: r.written, removed: r.removed }, 'model directory reloaded');
  for (const error of r.errors) log.warn({ dir }, `model compile error: ${error}`);
}
