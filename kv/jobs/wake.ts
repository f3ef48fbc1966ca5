/**
 * The in-process nudge: a job committed by this process wakes this process's runners at once,
 * so work caused by a request starts milliseconds after its commit, without a store read.
 */
type Listener = (due: number) => void;

const listeners = new Set<Listener>();

/** Tells every runner of the process that a job due at `due` was committed. */
export function jobWritten(due: number) {
  for (const listener of listeners) listener(due);
}

/** Calls `listener` for every job committed in this process, until the returned stop. */
export function onJobWritten(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
