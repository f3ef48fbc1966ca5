/** Task keys: projects, tasks and their owner listings, applications and idempotency records. */

export const projects = {
  record: (projectId: string): Deno.KvKey => ["projects", projectId],
  /** An owner's live projects, newest first by ULID; the value is the project itself. */
  byOwner: (ownerId: string, ulid: string): Deno.KvKey => ["projects_by_owner", ownerId, ulid],
  byOwnerPrefix: (ownerId: string): Deno.KvKey => ["projects_by_owner", ownerId],
};

export const tasks = {
  record: (taskId: string): Deno.KvKey => ["tasks", taskId],
  /** Every task record, for whole-store scans (benchmarks, checks). */
  recordPrefix: (): Deno.KvKey => ["tasks"],
  /** Every live task of a user, newest first by order key; value: list item and search terms. */
  byUser: (userId: string, orderKey: string): Deno.KvKey => ["tasks_by_user", userId, orderKey],
  byUserPrefix: (userId: string): Deno.KvKey => ["tasks_by_user", userId],
  /** Live tasks of a user in one status; value: list item. */
  byUserStatus: (
    userId: string,
    status: string,
    orderKey: string,
  ): Deno.KvKey => ["tasks_by_user_status", userId, status, orderKey],
  byUserStatusPrefix: (
    userId: string,
    status: string,
  ): Deno.KvKey => ["tasks_by_user_status", userId, status],
  /** Live tasks of a user by payment class (Paid, Pro-bono); value: list item and search terms. */
  byUserPayment: (
    userId: string,
    payment: string,
    orderKey: string,
  ): Deno.KvKey => ["tasks_by_user_payment", userId, payment, orderKey],
  byUserPaymentPrefix: (
    userId: string,
    payment: string,
  ): Deno.KvKey => ["tasks_by_user_payment", userId, payment],
  /** Deno.KvU64 count of a user's live tasks in one status. */
  countByUserStatus: (
    userId: string,
    status: string,
  ): Deno.KvKey => ["task_counts_by_user_status", userId, status],
};

export const applications = {
  record: (applicationId: string): Deno.KvKey => ["applications", applicationId],
  /** A task's applications, newest first by order key; value: the application id. */
  byTask: (taskId: string, orderKey: string): Deno.KvKey => [
    "applications_by_task",
    taskId,
    orderKey,
  ],
  byTaskPrefix: (taskId: string): Deno.KvKey => ["applications_by_task", taskId],
  /** An applicant's applications, newest first by order key; value: the application id. */
  byApplicant: (userId: string, orderKey: string): Deno.KvKey => [
    "applications_by_applicant",
    userId,
    orderKey,
  ],
  byApplicantPrefix: (userId: string): Deno.KvKey => ["applications_by_applicant", userId],
  /**
   * Present while the user's application to the task is active (pending or accepted); value:
   * its id. Checked absent by every application, so there is one active per user and task.
   */
  active: (userId: string, taskId: string): Deno.KvKey => ["applications_active", userId, taskId],
  activePrefix: (userId: string): Deno.KvKey => ["applications_active", userId],
  /** Present once the user's application to the task was declined; value: its id. */
  declined: (userId: string, taskId: string): Deno.KvKey => [
    "applications_declined",
    userId,
    taskId,
  ],
};

export const idempotencyKeys = {
  /** The first response to a POST made with this Idempotency-Key, per user, for 24 hours. */
  record: (
    userId: string,
    scope: string,
    key: string,
  ): Deno.KvKey => ["idempotency_keys", userId, scope, key],
};
