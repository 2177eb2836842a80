/**
 * Undo and redo for the dashboard editor (issue 23 item 1: every action undoable, Ctrl+Z and
 * Ctrl+Shift+Z): the draft as a present with the drafts before and after it. An edit that
 * continues the previous one (typing in one text widget) replaces the present rather than adding
 * a step, so that one undo takes back the whole burst, as a text editor does.
 */
export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** What the last step was (e.g. `text:w1`); a step with the same key is folded into it. */
  lastKey: string | null;
}

/** Steps kept: enough for a long session, bounded so that memory does not grow without end. */
const limit = 200;

export function startHistory<T>(present: T): History<T> {
  return { past: [], present, future: [], lastKey: null };
}

/** Records `next` as a step; `key` folds consecutive edits of one thing into one step. */
export function record<T>(h: History<T>, next: T, key: string | null = null): History<T> {
  if (Object.is(next, h.present)) return h;
  if (key !== null && key === h.lastKey) return { ...h, present: next, future: [] };
  return { past: [...h.past, h.present].slice(-limit), present: next, future: [], lastKey: key };
}

export function undo<T>(h: History<T>): History<T> {
  const previous = h.past[h.past.length - 1];
  if (previous === undefined) return h;
  return { past: h.past.slice(0, -1), present: previous, future: [h.present, ...h.future], lastKey: null };
}

export function redo<T>(h: History<T>): History<T> {
  const [next, ...rest] = h.future;
  if (next === undefined) return h;
  return { past: [...h.past, h.present], present: next, future: rest, lastKey: null };
}
