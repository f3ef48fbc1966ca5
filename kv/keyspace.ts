/**
 * Every Deno KV key shape of the service, built by one named function each. Nothing outside
 * `kv/` spells a key. Entities are snake_case plurals; indexes are `<entity>_by_<attr>` with the
 * id last, so a prefix lists every match.
 */
import type { Payment } from "../domain/tasks/task.ts";

export const config = {
  jwtSecret: (): Deno.KvKey => ["config", "jwt_secret"],
};

export const health = {
  probe: (): Deno.KvKey => ["health", "probe"],
};

export const meta = {
  /** The task index layout the store's index entries and counters were written in. */
  indexLayout: (): Deno.KvKey => ["meta", "index_layout"],
  /** In a target store only while `deno task kv:copy` into it is unfinished: where to resume. */
  copyProgress: (): Deno.KvKey => ["meta", "kv_copy"],
  /** When this version first listened for the KV queue messages an older one left (kv/jobs). */
  legacyQueueDrain: (): Deno.KvKey => ["meta", "legacy_queue_drain"],
};

/**
 * Background jobs (kv/jobs/), ordered by when each is due: its schedule, or while a runner holds
 * it, the end of that runner's lease. So one range lists everything due by a time.
 */
export const jobs = {
  entry: (due: number, jobId: string): Deno.KvKey => ["jobs", due, jobId],
  start: (): Deno.KvKey => ["jobs"],
  /** Past every job due before `at`. */
  dueBefore: (at: number): Deno.KvKey => ["jobs", at],
};

export const users = {
  record: (userId: string): Deno.KvKey => ["users", userId],
  byEmail: (email: string): Deno.KvKey => ["users_by_email", email],
  /** Newest-first listing: ids are ULID-ordered per creation. */
  byTime: (ulid: string): Deno.KvKey => ["users_by_time", ulid],
  byTimePrefix: (): Deno.KvKey => ["users_by_time"],
  /** Present while a deleted account's content is being removed: readers hide its tasks. */
  purge: (userId: string): Deno.KvKey => ["user_purges", userId],
  purgePrefix: (): Deno.KvKey => ["user_purges"],
  /** Rewritten by every change to a profile or an account's deletion; instances poll it. */
  changed: (): Deno.KvKey => ["users_changed"],
};

export const sessions = {
  record: (sessionId: string): Deno.KvKey => ["sessions", sessionId],
  byUser: (userId: string, id: string): Deno.KvKey => ["sessions_by_user", userId, id],
  byUserPrefix: (userId: string): Deno.KvKey => ["sessions_by_user", userId],
};

export const loginNetworks = {
  /** Present (expiring) while an account has recently logged in from a client network. */
  record: (userId: string, network: string): Deno.KvKey => ["login_networks", userId, network],
};

export const apiKeys = {
  record: (userId: string, keyId: string): Deno.KvKey => ["api_keys", userId, keyId],
  byUserPrefix: (userId: string): Deno.KvKey => ["api_keys", userId],
  byDigest: (digest: string): Deno.KvKey => ["api_keys_by_digest", digest],
  /** Bumped on every change to an account's keys: serializes creation, invalidates caches. */
  version: (userId: string): Deno.KvKey => ["api_keys_version", userId],
  /** Rewritten by every change that matters to authentication; instances poll it (key cache). */
  changed: (): Deno.KvKey => ["api_keys_changed"],
};

/**
 * Per-key request counts: one Deno.KvU64 per key, bucket unit, bucket start (epoch ms, UTC hour or
 * day) and outcome, so a range of a key's buckets is one contiguous `kv.list`.
 */
export const apiKeyUsage = {
  bucket: (keyId: string, unit: string, start: number, outcome: string): Deno.KvKey => [
    "api_key_usage",
    keyId,
    unit,
    start,
    outcome,
  ],
  from: (keyId: string, unit: string, start: number): Deno.KvKey => [
    "api_key_usage",
    keyId,
    unit,
    start,
  ],
  prefix: (keyId: string): Deno.KvKey => ["api_key_usage", keyId],
};

/**
 * Rate-limit counters: a Deno.KvU64 per policy, subject and slot (a sixtieth of the window), so a
 * subject's window is one range; the boolean version marker sorts after every (number) slot.
 */
export const rateLimits = {
  slot: (policy: string, subject: string, index: number): Deno.KvKey => [
    "rate_slots",
    policy,
    subject,
    index,
  ],
  prefix: (policy: string, subject?: string): Deno.KvKey =>
    subject === undefined ? ["rate_slots", policy] : ["rate_slots", policy, subject],
  /** Bumped by every exact count of a subject, checked by exact takes to serialize them. */
  version: (policy: string, subject: string): Deno.KvKey => ["rate_slots", policy, subject, false],
  /** A lease's record (its claim mark): after the version marker, so listed with the slots. */
  lease: (policy: string, subject: string, id: string): Deno.KvKey => [
    "rate_slots",
    policy,
    subject,
    false,
    id,
  ],
  /** Past every slot and the version marker: the exclusive end of a subject's listing. */
  end: (policy: string, subject: string): Deno.KvKey => ["rate_slots", policy, subject, true],
  /** A slot's cleanup marker (sums cannot expire), by when it leaves: a sweep lists due ones. */
  due: (leavesAt: number, policy: string, subject: string, index: number): Deno.KvKey => [
    "rate_slots_due",
    leavesAt,
    policy,
    subject,
    index,
  ],
  dueStart: (): Deno.KvKey => ["rate_slots_due"],
  /** Past every marker due at or before `at` (a boolean sorts after the policy's string). */
  dueEnd: (at: number): Deno.KvKey => ["rate_slots_due", at, true],
};

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
/**
 * Explore indexes over published tasks (see kv/explore/explore_index.ts). Roots are short on purpose:
 * each is repeated in some twenty entries per task, millions of times over. Every entry ends with
 * the task's order key, so each prefix lists newest first with `reverse: true`.
 */
export const explore = {
  /** The explore document of a task (item, search terms, facet), by payment class. */
  all: (payment: Payment, orderKey: string): Deno.KvKey => [
    "xp_tasks",
    paymentPart(payment),
    orderKey,
  ],
  allPrefix: (payment: Payment): Deno.KvKey => ["xp_tasks", paymentPart(payment)],
  /** A geo layer's geohash cell (precision = cell length); value: facet. */
  byCell: (layer: string, cell: string, orderKey: string): Deno.KvKey => [
    "xp_by_cell",
    layer,
    cell,
    orderKey,
  ],
  byCellPrefix: (layer: string, cell: string): Deno.KvKey => ["xp_by_cell", layer, cell],
  /** Every geo entry of every layer (checks and tests). */
  byCellRoot: (): Deno.KvKey => ["xp_by_cell"],
  /**
   * A geo-placed task by its layer and fine geohash (`POINT_PRECISION`); value: card. One entry
   * per task that a key range lists at any coarser precision (`byPointRange`), for nearest-first
   * walks that go as deep as the density needs.
   */
  byPoint: (layer: string, hash: string, orderKey: string): Deno.KvKey => [
    "xp_by_point",
    layer,
    hash,
    orderKey,
  ],
  /** The entries of a layer whose fine geohash starts with `cell` ("~" sorts after base32). */
  byPointRange: (layer: string, cell: string): { start: Deno.KvKey; end: Deno.KvKey } => ({
    start: ["xp_by_point", layer, cell],
    end: ["xp_by_point", layer, `${cell}~`],
  }),
  /** Upper-case country code; value: facet. */
  byCountry: (countryCode: string, orderKey: string): Deno.KvKey => [
    "xp_by_country",
    countryCode,
    orderKey,
  ],
  byCountryPrefix: (countryCode: string): Deno.KvKey => ["xp_by_country", countryCode],
  /** Normalized location name, split by city and other types; value: facet. */
  byName: (name: string, kind: NameKind, orderKey: string): Deno.KvKey => [
    "xp_by_name",
    name,
    kind,
    orderKey,
  ],
  byNamePrefix: (name: string, kind: NameKind): Deno.KvKey => ["xp_by_name", name, kind],
  /**
   * One normalized word of title or description, by zone (`wordZone`: where the task can match
   * a circle), newest first within each zone; value: true when paid, false when pro-bono.
   */
  byWord: (word: string, zone: string, orderKey: string): Deno.KvKey => [
    "xp_w",
    word,
    zone,
    orderKey,
  ],
  byWordPrefix: (word: string): Deno.KvKey => ["xp_w", word],
  byWordZonePrefix: (word: string, zone: string): Deno.KvKey => ["xp_w", word, zone],
  byWordRoot: (): Deno.KvKey => ["xp_w"],
  /** The word index of layouts up to 6, by word alone, which the rebuild removes. */
  byWordOldRoot: (): Deno.KvKey => ["xp_by_word"],
  /** The word-zone index of layouts 3 to 5, which the rebuild removes (checks and tests). */
  byWordZoneRoot: (): Deno.KvKey => ["xp_by_word_zone"],
  /** Tasks with more distinct words than are indexed; every search reads them too. */
  overflow: (orderKey: string): Deno.KvKey => ["xp_overflow", orderKey],
  overflowPrefix: (): Deno.KvKey => ["xp_overflow"],
  /** Dictionary: Deno.KvU64 count of published tasks holding the word, by zone (`byWord`). */
  word: (word: string, zone: string): Deno.KvKey => ["xp_words", word, zone],
  wordsPrefix: (): Deno.KvKey => ["xp_words"],
  /** Deno.KvU64 count of published tasks of one payment class. */
  countByPayment: (payment: Payment): Deno.KvKey => ["xp_counts", "paid", paymentPart(payment)],
  /** Deno.KvU64 counters the planner reads to pick the most selective index. */
  count: (...parts: (string | number)[]): Deno.KvKey => ["xp_counts", ...parts],
};

/** How explore keys spell a payment class (the API's `Payment`), kept as first written. */
function paymentPart(payment: Payment): string {
  return payment === "Paid" ? "paid" : "free";
}
/** Name partition: city-type tasks apart, for cityName. */
export type NameKind = "city" | "other";

export const webhooks = {
  record: (userId: string, webhookId: string): Deno.KvKey => ["webhooks", userId, webhookId],
  byUserPrefix: (userId: string): Deno.KvKey => ["webhooks", userId],
  /**
   * The union of the event types its enabled endpoints select. Rewritten by every endpoint change
   * (serializing creation: the 10-endpoint limit) and checked by every atomic that may raise an
   * event, so an endpoint change concurrent with the write makes the write read it again.
   */
  subscription: (userId: string): Deno.KvKey => ["webhook_subscriptions", userId],
  /** One event's delivery to one endpoint, newest first by the event's ULID. */
  delivery: (webhookId: string, eventUlid: string): Deno.KvKey => [
    "webhook_deliveries",
    webhookId,
    eventUlid,
  ],
  deliveriesPrefix: (webhookId: string): Deno.KvKey => ["webhook_deliveries", webhookId],
  /** A delivery's public id to its event ULID; value: the ULID. */
  deliveryById: (webhookId: string, deliveryId: string): Deno.KvKey => [
    "webhook_deliveries_by_id",
    webhookId,
    deliveryId,
  ],
  /** An event's body as UTF-8 bytes, split in values under 64 KiB; shared by its deliveries. */
  eventBody: (ulid: string, part: number): Deno.KvKey => ["webhook_event_bodies", ulid, part],
  eventBodyPrefix: (eventUlid: string): Deno.KvKey => ["webhook_event_bodies", eventUlid],
};

export const securityLog = {
  /** One security event of an account, newest first by ULID; expires after 90 days. */
  entry: (userId: string, ulid: string): Deno.KvKey => ["security_log", userId, ulid],
  prefix: (userId: string): Deno.KvKey => ["security_log", userId],
};

export const keyNotices = {
  /** Set once a key's expiry notice (expiring_7d, expiring_1d, expired) was raised. */
  sent: (keyId: string, notice: string): Deno.KvKey => ["api_key_notices", keyId, notice],
};

/**
 * Reviews (kv/reviews/): the record is keyed by its task and pair, so that one key is both the
 * review and the once-per-pair marker, and a task's reviews list under one prefix.
 */
export const reviews = {
  record: (taskId: string, reviewerId: string, revieweeId: string): Deno.KvKey => [
    "reviews",
    taskId,
    reviewerId,
    revieweeId,
  ],
  byTaskPrefix: (taskId: string): Deno.KvKey => ["reviews", taskId],
  /** Visible reviews about a user, newest first by order key; value: the record's key parts. */
  byReviewee: (userId: string, orderKey: string): Deno.KvKey => [
    "reviews_by_reviewee",
    userId,
    orderKey,
  ],
  byRevieweePrefix: (userId: string): Deno.KvKey => ["reviews_by_reviewee", userId],
  /** Every review a user wrote, hidden ones included; value: the record's key parts. */
  byReviewer: (userId: string, orderKey: string): Deno.KvKey => [
    "reviews_by_reviewer",
    userId,
    orderKey,
  ],
  byReviewerPrefix: (userId: string): Deno.KvKey => ["reviews_by_reviewer", userId],
  /** A completed task's review window ({closesAt, closed}); closed by its job. */
  window: (taskId: string): Deno.KvKey => ["review_windows", taskId],
  /** Deno.KvU64 sum and count of the visible ratings about a user. */
  ratingSum: (userId: string): Deno.KvKey => ["review_ratings", userId, "sum"],
  ratingCount: (userId: string): Deno.KvKey => ["review_ratings", userId, "count"],
  /** Rewritten by every reveal; instances poll it (the authors' rating cache). */
  changed: (): Deno.KvKey => ["reviews_changed"],
};

/**
 * Task alerts (kv/alerts/): records, a per-account count that serializes creation (the limit of
 * 20), the inverted index a new task reads (docs/alerts.md) and each alert's matches.
 */
export const alerts = {
  record: (userId: string, alertId: string): Deno.KvKey => ["alerts", userId, alertId],
  byUserPrefix: (userId: string): Deno.KvKey => ["alerts", userId],
  count: (userId: string): Deno.KvKey => ["alert_counts", userId],
  /** One alert filed under a name, country or geo cell; value: its filters. */
  byName: (name: string, alertId: string): Deno.KvKey => ["alert_index", "n", name, alertId],
  byNamePrefix: (name: string): Deno.KvKey => ["alert_index", "n", name],
  byCountry: (code: string, alertId: string): Deno.KvKey => ["alert_index", "c", code, alertId],
  byCountryPrefix: (code: string): Deno.KvKey => ["alert_index", "c", code],
  byCell: (layer: number, cell: string, alertId: string): Deno.KvKey => [
    "alert_index",
    "g",
    layer,
    cell,
    alertId,
  ],
  byCellPrefix: (layer: number, cell: string): Deno.KvKey => ["alert_index", "g", layer, cell],
  /** A page of the alerts under a word's first letters (or "*"): `getMany` reads ten at once. */
  wordPage: (prefix: string, page: number): Deno.KvKey => ["alert_words", prefix, page],
  /** A task an alert matched, newest first; its presence makes the match happen once. */
  match: (alertId: string, orderKey: string): Deno.KvKey => ["alert_matches", alertId, orderKey],
  matchesPrefix: (alertId: string): Deno.KvKey => ["alert_matches", alertId],
  /** A task's matching: a marker per part of the alerts it recorded ("whole") or cut ("split"). */
  matchPart: (taskId: string, part: string): Deno.KvKey => ["alert_match_parts", taskId, part],
  matchPartsPrefix: (taskId: string): Deno.KvKey => ["alert_match_parts", taskId],
};
