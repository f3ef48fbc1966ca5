/**
 * Projects in KV: the record by id, and per owner a newest-first index whose values are the
 * projects themselves, so a page is one range read. Both always change in one atomic.
 */
import { AppError } from "../domain/errors.ts";
import { type Project, type ProjectRecord, toProject } from "../domain/project.ts";
import { readNewestFirst } from "./cursor.ts";
import { atomically, commit } from "./commit.ts";
import { projects } from "./keyspace.ts";
import { orderKey } from "./order_key.ts";

const CONFLICT = "The project changed too often to complete; try again";

/** Stores a new project for its owner; `listKey` is assigned here. */
export async function createProject(
  kv: Deno.Kv,
  project: Omit<ProjectRecord, "listKey" | "deletedAt">,
): Promise<ProjectRecord> {
  const record: ProjectRecord = {
    ...project,
    listKey: orderKey(Date.parse(project.createdAt), project.id),
    deletedAt: null,
  };
  const res = await commit(
    kv.atomic()
      .check({ key: projects.record(record.id), versionstamp: null })
      .set(projects.record(record.id), record)
      .set(projects.byOwner(record.ownerId, record.listKey), toProject(record)),
  );
  if (!res.ok) throw new AppError("CONFLICT", CONFLICT);
  return record;
}

async function getEntry(kv: Deno.Kv, ownerId: string, projectId: string) {
  const entry = await kv.get<ProjectRecord>(projects.record(projectId));
  const live = entry.value && !entry.value.deletedAt && entry.value.ownerId === ownerId;
  return live ? entry as Deno.KvEntry<ProjectRecord> : null;
}

/** The owner's live project, or null (another owner's project is null too). */
export async function getProject(
  kv: Deno.Kv,
  ownerId: string,
  projectId: string,
): Promise<ProjectRecord | null> {
  return (await getEntry(kv, ownerId, projectId))?.value ?? null;
}

/** One owner's project. */
export interface ProjectRef {
  ownerId: string;
  projectId: string;
}

/**
 * Rewrites the owner's live project and its index entry under a versionstamp check, retrying
 * when a concurrent write got there first. Returns null when there is no such project.
 */
export function updateProject(
  kv: Deno.Kv,
  ref: ProjectRef,
  change: (project: ProjectRecord) => ProjectRecord,
): Promise<ProjectRecord | null> {
  const { ownerId, projectId } = ref;
  return atomically<ProjectRecord | null>(CONFLICT, async () => {
    const entry = await getEntry(kv, ownerId, projectId);
    if (!entry) return { value: null };
    const next = change(entry.value);
    const op = kv.atomic().check(entry).set(projects.record(projectId), next);
    if (next.deletedAt) op.delete(projects.byOwner(ownerId, next.listKey));
    else op.set(projects.byOwner(ownerId, next.listKey), toProject(next));
    return { value: next, op };
  });
}

/** Soft-deletes: the record keeps `deletedAt` and leaves the owner's listing in the same atomic. */
export function deleteProject(
  kv: Deno.Kv,
  ref: ProjectRef,
  at: string,
): Promise<ProjectRecord | null> {
  return updateProject(kv, ref, (p) => ({ ...p, deletedAt: at, updatedAt: at }));
}

/** A page of the owner's live projects, newest first, and the ordering key to continue after. */
export async function listProjects(
  kv: Deno.Kv,
  query: { ownerId: string; limit: number; before?: string },
): Promise<{ projects: Project[]; next: string | null }> {
  const { ownerId, limit, before } = query;
  const page = await readNewestFirst<Project>(kv, {
    prefix: projects.byOwnerPrefix(ownerId),
    limit,
    before,
  });
  return { projects: page.entries.map((e) => e.value), next: page.next };
}

/** Soft-deletes every live project of an owner (account deletion); safe to run again. */
export async function deleteOwnerProjects(kv: Deno.Kv, ownerId: string, at: string) {
  for await (const entry of kv.list<Project>({ prefix: projects.byOwnerPrefix(ownerId) })) {
    await deleteProject(kv, { ownerId, projectId: entry.value.id }, at);
  }
}
