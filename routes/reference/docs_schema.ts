/**
 * An OpenAPI schema as the /docs page shows it: its type label and rules, its members as a nested
 * list, and a plausible value to prefill a request body with.
 */
import { escapeHtml, inline } from "./docs_markdown.ts";
import type { OpenApiDocument } from "./openapi.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

function refName(schema: Schema): string | null {
  const ref = schema.$ref;
  return typeof ref === "string" ? ref.split("/").at(-1)! : null;
}

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  const name = refName(schema);
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  return name && schemas[name] ? resolve(doc, schemas[name]) : schema;
}

/** A short type label: `string (uuid)`, `PublicProfile[]`, `string | null`. */
export function typeLabel(schema: Schema): string {
  const name = refName(schema);
  if (name) return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return variants.map(typeLabel).join(" | ");
  if (schema.type === "array" && schema.items) return `${typeLabel(schema.items as Schema)}[]`;
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "any");
  return escapeHtml(schema.format ? `${type} (${schema.format})` : type);
}

const CONSTRAINTS = [
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "minItems",
  "maxItems",
  "pattern",
  "default",
];

export function constraints(schema: Schema): string {
  const parts = CONSTRAINTS.filter((k) => schema[k] !== undefined)
    .map((k) => `${k}: ${JSON.stringify(schema[k])}`);
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map(String).join(", ")}`);
  return parts.length ? `<span class="rules">${escapeHtml(parts.join("; "))}</span>` : "";
}

/** The members of an object schema as a nested list; named schemas link to their section. */
export function schemaTree(doc: OpenApiDocument, schema: Schema, depth = 0): string {
  if (refName(schema) && depth > 0) return "";
  const target = resolve(doc, schema);
  if (target.type === "array" && target.items) {
    return schemaTree(doc, target.items as Schema, depth + 1);
  }
  const properties = target.properties as Record<string, Schema> | undefined;
  if (!properties || depth > 3) return "";
  const required = new Set((target.required as string[] | undefined) ?? []);
  return `<ul class="props">${
    Object.entries(properties).map(([name, prop]) =>
      `<li><code>${escapeHtml(name)}</code> <span class="type">${typeLabel(prop)}</span>` +
      `${required.has(name) ? ' <span class="req">required</span>' : ""} ${constraints(prop)}` +
      `${
        prop.description ? ` <span class="desc">${inline(String(prop.description))}</span>` : ""
      }` +
      `${schemaTree(doc, prop, depth + 1)}</li>`
    ).join("")
  }</ul>`;
}

/** A plausible value for a schema, to prefill request bodies. */
export function exampleOf(doc: OpenApiDocument, schema: Schema, depth = 0): Json {
  const target = resolve(doc, schema);
  if (target.example !== undefined) return target.example;
  if (target.default !== undefined) return target.default;
  if (Array.isArray(target.enum)) return target.enum[0];
  const variants = (target.anyOf ?? target.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return exampleOf(doc, variants[0], depth + 1);
  const type = Array.isArray(target.type) ? target.type.find((t) => t !== "null") : target.type;
  switch (type) {
    case "object": {
      const result: { [key: string]: Json } = {};
      const properties = (target.properties ?? {}) as Record<string, Schema>;
      const required = new Set((target.required as string[] | undefined) ?? []);
      for (const [name, prop] of Object.entries(properties)) {
        if (required.has(name) && depth < 5) result[name] = exampleOf(doc, prop, depth + 1);
      }
      return result;
    }
    case "array":
      return Number(target.minItems ?? 0) > 0 && target.items
        ? [exampleOf(doc, target.items as Schema, depth + 1)]
        : [];
    case "integer":
    case "number":
      return Number(target.minimum ?? 1);
    case "boolean":
      return false;
    case "string":
      return ({
        email: "ada@example.com",
        uuid: "00000000-0000-4000-8000-000000000000",
        "date-time": "2026-12-31T12:00:00.000Z",
        uri: "https://example.com/picture.png",
      } as Record<string, string>)[String(target.format)] ?? "text";
    default:
      return null;
  }
}
