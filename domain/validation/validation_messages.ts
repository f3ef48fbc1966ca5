/**
 * Plain-language validation messages ("must be at least 8 characters") in place of zod's
 * defaults. `createApp` installs them as zod's error map for request validation; a domain parse
 * that words its own errors passes `plainMessages` itself, so its wording never depends on
 * whether an app was built first. Either way a schema's own message still wins.
 */
import { z } from "zod";

type Issue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  boolean: "true or false",
  array: "an array",
  tuple: "an array",
  object: "an object",
  record: "an object",
  date: "a date",
  null: "null",
};

const FORMAT_NAMES: Record<string, string> = {
  email: "an email address",
  uuid: "a UUID",
  guid: "a UUID",
  url: "a URL",
  datetime: "an ISO 8601 timestamp",
  date: "a date (YYYY-MM-DD)",
  time: "a time (HH:MM:SS)",
  duration: "an ISO 8601 duration",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  cidrv4: "an IPv4 CIDR range",
  cidrv6: "an IPv6 CIDR range",
  base64: "base64",
  base64url: "base64url",
};

function count(n: number | bigint, one: string, many: string): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

function listed(values: readonly unknown[]): string {
  return values.map((v) => typeof v === "string" ? v : JSON.stringify(v)).join(", ");
}

/** The size of a string or list, or the value of a number, compared with a bound. */
function bound(issue: Issue & { code: "too_small" | "too_big" }): string {
  const small = issue.code === "too_small";
  const limit = small ? issue.minimum : issue.maximum;
  const word = small ? "least" : "most";
  switch (issue.origin) {
    case "string":
      if (issue.exact) return `must be exactly ${count(limit, "character", "characters")}`;
      if (small && Number(limit) === 1) return "must not be empty";
      return `must be at ${word} ${count(limit, "character", "characters")}`;
    case "array":
    case "set":
      if (issue.exact) return `must have exactly ${count(limit, "item", "items")}`;
      if (small && Number(limit) === 1) return "must not be empty";
      return `must have at ${word} ${count(limit, "item", "items")}`;
    case "date":
      return `must be ${small ? "on or after" : "on or before"} ${
        new Date(Number(limit)).toISOString()
      }`;
    default:
      if (issue.inclusive === false) return `must be ${small ? "greater" : "less"} than ${limit}`;
      return `must be at ${word} ${limit}`;
  }
}

function format(issue: Issue & { code: "invalid_format" }): string {
  switch (issue.format) {
    case "starts_with":
      return `must start with "${issue.prefix}"`;
    case "ends_with":
      return `must end with "${issue.suffix}"`;
    case "includes":
      return `must include "${issue.includes}"`;
    case "lowercase":
      return "must be in lower case";
    case "uppercase":
      return "must be in upper case";
  }
  const name = FORMAT_NAMES[issue.format];
  return name ? `must be ${name}` : "has an invalid format";
}

/** The message for a zod issue that its schema did not word itself. */
export function plainMessage(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "too_small":
    case "too_big":
      return bound(issue);
    case "invalid_format":
      return format(issue);
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of: ${listed(issue.values)}`;
    case "unrecognized_keys":
      return `has unknown members: ${issue.keys.join(", ")}`;
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      return options ? `must be one of: ${listed(options)}` : "does not match any allowed form";
    }
    case "invalid_key":
      return "has an invalid key";
    case "invalid_element":
      return "has an invalid element";
    default:
      return "is not valid";
  }
}

/** Per-parse options that word a parse's errors plainly: `schema.safeParse(data, plainMessages)`. */
export const plainMessages = { error: plainMessage } as const;

/**
 * Makes plain messages zod's error map for every parse that brings none of its own (the request
 * validators Hono runs). Process-wide, as zod's configuration is; called by `createApp`.
 */
export function installValidationMessages(): void {
  z.config({ customError: plainMessage });
}
