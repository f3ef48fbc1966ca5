/**
 * The one rule for URL fields (profile pictures, task images): an absolute https URL, any host.
 * Pages served over https embed these, so an http one would be mixed content.
 */
import { z } from "zod";

export const MAX_URL_LENGTH = 2048;

const HTTPS_URL_MESSAGE =
  `must be an https URL (https://host/path) of at most ${MAX_URL_LENGTH} characters, ` +
  "without spaces or user credentials";

/**
 * True for `https://` followed by a host, as written (no leading space, tab or newline that the
 * URL parser would silently drop), and without `user:password@`, which would be shown to all.
 */
export function isHttpsUrl(text: string): boolean {
  if (text.length > MAX_URL_LENGTH || !/^https:\/\/[^/?#]/i.test(text)) return false;
  // deno-lint-ignore no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(text)) return false;
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === "https:" && url.hostname !== "" && url.username === "" &&
    url.password === "";
}

/** An https URL, kept as written. */
export const HttpsUrl = z.string({ error: HTTPS_URL_MESSAGE }).refine(isHttpsUrl, HTTPS_URL_MESSAGE)
  .meta({
    format: "uri",
    maxLength: MAX_URL_LENGTH,
    // isHttpsUrl's shape; the URL parser's own rules stay with `format`.
    pattern: "^[Hh][Tt][Tt][Pp][Ss]://[^/?#\\s\\x00-\\x1f\\x7f][^\\s\\x00-\\x1f\\x7f]*$",
    description: "An absolute https URL (any host)",
  });
