/** Projects: private to their owner, soft-deleted. Shapes of the create, update and response. */
import { z } from "zod";
import { userText } from "./validation/text.ts";

const name = userText({ min: 1, max: 100 });
const description = userText({ max: 2000, multiline: true });

export const ProjectCreate = z.strictObject({
  name,
  description: description.default(""),
}).meta({ id: "ProjectCreate" });
export type ProjectCreate = z.infer<typeof ProjectCreate>;

/** A partial update: members left out keep their value. */
export const ProjectUpdate = z.strictObject({
  name: name.optional(),
  description: description.optional(),
}).meta({ id: "ProjectUpdate" });
export type ProjectUpdate = z.infer<typeof ProjectUpdate>;

export const Project = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: "Project" });
export type Project = z.infer<typeof Project>;

/** A stored project: the response shape plus its owner, listing key and deletion time. */
export interface ProjectRecord extends Project {
  ownerId: string;
  listKey: string;
  deletedAt: string | null;
}

export function toProject(record: ProjectRecord): Project {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** Applies a partial update, stamping `updatedAt`. */
export function applyProjectUpdate(
  record: ProjectRecord,
  change: ProjectUpdate,
  at: string,
): ProjectRecord {
  return {
    ...record,
    name: change.name ?? record.name,
    description: change.description ?? record.description,
    updatedAt: at,
  };
}
