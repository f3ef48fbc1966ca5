/**
 * The one rule for URL fields (profile pictures, task images): an absolute https URL, any host.
 * Pages served over https embed these, so an http one would be mixed content.
 */
import { z } from "zod";
import { TRIMMED_CLASS } from "./text.ts";

export const MAX_URL_LENGTH = 2048;

const HTTPS_URL_MESSAGE =
  `must be an https URL (https://host/path) of at most ${MAX_URL_LENGTH} characters, ` +
  "without spaces or user credentials";

// What the service reads before the URL parser, as one pattern the document states: `https://`
// (any case), a first character that starts a host, no white space or control anywhere, and no
// `@` before the path, the query or the fragment (credentials would be shown to all; the parser
// ends the host at a backslash as at a slash). No `format: uri`: RFC 3986 refuses the non-ASCII
// hosts and paths the URL parser takes as written.
const NOTHING_BLANK = String.raw`${TRIMMED_CLASS}\x00-\x1f\x7f`;
export const HTTPS_URL_PATTERN = String.raw`^[Hh][Tt][Tt][Pp][Ss]://(?![/?#])[/\\]*` +
  String.raw`[^/\\?#@${NOTHING_BLANK}]+(?:[/\\?#][^${NOTHING_BLANK}]*)?$`;
const HTTPS_URL = new RegExp(HTTPS_URL_PATTERN);

/**
 * True for an URL the pattern takes, of at most 2048 characters, that the URL parser reads as
 * https with a host: leading spaces the parser would drop are refused, and so are credentials.
 */
export function isHttpsUrl(text: string): boolean {
  if (text.length > MAX_URL_LENGTH || !HTTPS_URL.test(text) || !URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === "https:" && url.hostname !== "" && url.username === "" &&
    url.password === "";
}

/** An https URL, kept as written. */
export const HttpsUrl = z.string({ error: HTTPS_URL_MESSAGE }).refine(isHttpsUrl, HTTPS_URL_MESSAGE)
  .meta({
    maxLength: MAX_URL_LENGTH,
    pattern: HTTPS_URL_PATTERN,
    description: "An absolute https URL (any host, non-ASCII ones as written); one the URL " +
      "parser cannot read (a malformed host) is refused",
  });
