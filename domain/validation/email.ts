/**
 * The one rule for an email address a user signs up with, as a pattern the document states
 * beside `format: email`, so every validator refuses what the service refuses.
 */
import { z } from "zod";

/**
 * Dot-separated atoms of letters, digits and `_'+-` (not ending in `'`), `@`, then dot-separated
 * labels of letters, digits and inner hyphens ending in a top-level label of two letters or more.
 * It is zod's own email rule with labels that cannot end in a hyphen, so that it lies within
 * ajv-formats' `email` (which refuses `a@b-.example`); and it asks for a dot after the `@`, which
 * some validators' `email` do not (`zero@com`). Plain ASCII ranges, read the same by every regex
 * engine.
 */
export const EMAIL_PATTERN = "^(?:[A-Za-z0-9_'+-]+\\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]" +
  "@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z]{2,}$";

export const MAX_EMAIL_LENGTH = 254;

// The generator leaves a format's pattern out of the document; `meta` puts it back.
export const Email = z.email({ pattern: new RegExp(EMAIL_PATTERN) }).max(MAX_EMAIL_LENGTH)
  .meta({ pattern: EMAIL_PATTERN });
