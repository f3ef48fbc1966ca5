/** A task's history and the people it ever accepted. */

export const taskHistory = {
  /** Entry `seq` (from 1, in commit order) of a task's history; value: the entry. */
  entry: (taskId: string, seq: number): Deno.KvKey => ["task_history", taskId, seq],
  prefix: (taskId: string): Deno.KvKey => ["task_history", taskId],
  /**
   * Present once the user's application to the task was accepted, and kept; value: the id of the
   * application accepted last. Whoever it names may read the task's history.
   */
  helper: (taskId: string, userId: string): Deno.KvKey => ["task_helpers", taskId, userId],
};
