/** Who is calling and what they may do: scopes, principals and the access rule of an endpoint. */
import { z } from "zod";

export const SCOPES = [
  "tasks:read",
  "tasks:write",
  "profile:read",
  "profile:write",
  "projects:read",
  "projects:write",
  "webhooks:read",
  "webhooks:write",
  "applications:read",
  "applications:write",
  "reviews:read",
  "reviews:write",
  "alerts:read",
  "alerts:write",
  "messages:read",
  "messages:write",
] as const;

export const Scope = z.enum(SCOPES).meta({ id: "Scope" });
export type Scope = z.infer<typeof Scope>;

/** An authenticated caller: a user acting through an API key or a session token. */
export interface Principal {
  userId: string;
  via: "api_key" | "session";
  scopes: readonly Scope[];
  keyId?: string;
  /** An API key's own hourly budget, when it has one. */
  rateLimitPerHour?: number;
  sessionId?: string;
}

/**
 * What an endpoint demands: `public` takes any caller (a credential that is sent is still
 * checked), a scope takes an API key holding it or a session, `session` takes a session only.
 */
export type Access = "public" | "session" | { scope: Scope };

/** True when the principal may use an endpoint needing `scope` (sessions hold every scope). */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.via === "session" || principal.scopes.includes(scope);
}
