/** Users and sessions: sign-up and profile shapes, and what a stored user holds. */
import { z } from "zod";
import { NOT_BLANK_PATTERN, userText } from "../validation/text.ts";
import { Email } from "../validation/email.ts";
import { HttpsUrl } from "../validation/url.ts";

export const SignUp = z.strictObject({
  email: Email,
  password: z.string().min(8).max(128),
  firstName: userText({ min: 1, max: 100 }),
  lastName: userText({ max: 100 }).optional(),
  profilePic: HttpsUrl.optional(),
}).meta({ id: "SignUp" });
export type SignUp = z.infer<typeof SignUp>;

export const Login = z.strictObject({
  email: z.string().max(254).trim().min(1).meta({ pattern: NOT_BLANK_PATTERN }),
  password: z.string().min(1).max(128),
}).meta({ id: "Login" });
export type Login = z.infer<typeof Login>;

export const UserUpdate = z.strictObject({
  firstName: userText({ min: 1, max: 100 }).optional(),
  lastName: userText({ max: 100 }).nullable().optional(),
  profilePic: HttpsUrl.nullable().optional(),
}).meta({ id: "UserUpdate" });
export type UserUpdate = z.infer<typeof UserUpdate>;

export const PublicProfile = z.object({
  id: z.uuid(),
  firstName: z.string(),
  lastName: z.string().nullable(),
  profilePic: z.string().nullable(),
  createdAt: z.string(),
}).meta({ id: "PublicProfile" });
export type PublicProfile = z.infer<typeof PublicProfile>;

export const PrivateProfile = PublicProfile.extend({
  email: z.string(),
  updatedAt: z.string(),
}).meta({ id: "PrivateProfile" });
export type PrivateProfile = z.infer<typeof PrivateProfile>;

export const SessionToken = z.object({
  token: z.string(),
  tokenType: z.literal("Bearer"),
  expiresAt: z.string(),
}).meta({ id: "SessionToken" });

/** A stored user. `passwordHash` never leaves `kv/` and the domain. */
export interface UserRecord {
  id: string;
  email: string;
  firstName: string;
  lastName: string | null;
  profilePic: string | null;
  passwordHash: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

/**
 * A deleted account's record once its purge is done: its id, dates and `deletedAt` stay (reviews
 * and conversations show a deleted party by them, with no name); the email, names, picture and
 * password hash go.
 */
export function purgedUser<T extends UserRecord>(user: T): T {
  return { ...user, email: "", firstName: "", lastName: null, profilePic: null, passwordHash: "" };
}

/** Emails are unique ignoring case; this is the form they are compared in. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function toPublicProfile(user: UserRecord): PublicProfile {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    profilePic: user.profilePic,
    createdAt: user.createdAt,
  };
}

export function toPrivateProfile(user: UserRecord): PrivateProfile {
  return { ...toPublicProfile(user), email: user.email, updatedAt: user.updatedAt };
}

/**
 * A profile edit at `at`, as a pure transition from the stored user: the members given replace
 * theirs (null clears a last name or picture). kv runs it again on the fresh user after a
 * concurrent change, so no edit is lost.
 */
export function editedUser(update: UserUpdate, at: string): <T extends UserRecord>(user: T) => T {
  return (user) => ({
    ...user,
    firstName: update.firstName ?? user.firstName,
    lastName: update.lastName === undefined ? user.lastName : update.lastName,
    profilePic: update.profilePic === undefined ? user.profilePic : update.profilePic,
    updatedAt: at,
  });
}
