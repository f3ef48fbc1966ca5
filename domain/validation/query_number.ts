/**
 * Numbers in query strings, read strictly: `Number()` and `z.coerce` would take "1e1", "0x10",
 * " 5" or "" (as 10, 16, 5 and 0); here anything but plain decimal digits is a validation error.
 */
import { z } from "zod";

const WHOLE = /^(0|[1-9]\d*)$/;
const DECIMAL = /^[+-]?(0|[1-9]\d*)(\.\d+)?$/;

/** A whole number written in plain digits (no sign, no leading zero), from `min` to `max`. */
export function wholeNumberParam(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.string().transform((text, ctx) => {
    const value = Number(text);
    if (WHOLE.test(text) && value >= min && value <= max) return value;
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  }).meta({ type: "integer", minimum: min, maximum: max });
}

/** A plain decimal (optional sign, optional fraction, no exponent), from `min` to `max`. */
export function decimalParam(min: number, max: number) {
  const message = `must be a decimal number from ${min} to ${max}`;
  return z.string().transform((text, ctx) => {
    const value = Number(text);
    if (DECIMAL.test(text) && Number.isFinite(value) && value >= min && value <= max) {
      return value;
    }
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  }).meta({ type: "number", minimum: min, maximum: max });
}
