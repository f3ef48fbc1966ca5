/** Shared by the OpenAPI rules tests: the served document and validators of its schemas. */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { type TestContext } from "../helpers.ts";

// ajv-formats is CommonJS; its default export is the plugin function.
export const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// deno-lint-ignore no-explicit-any
export type Schema = any;
export type Doc = {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Schema>;
};

export const BASE = "https://task-marketplace.test/openapi.json";

/** Validates values against the document's schemas; `query` reads numbers from their text. */
export function validators(doc: Doc) {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes });
    addFormats(ajv);
    ajv.addSchema({ $id: BASE, components: doc.components });
    return ajv;
  };
  const body = make(false);
  const query = make(true);
  // Refs are document-relative; compiled apart from the document they point into it.
  const absolute = (schema: Schema) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}#/components/`));
  return {
    body: (schema: Schema, value: unknown) => body.validate(absolute(schema), value) as boolean,
    query: (schema: Schema, value: string) =>
      query.validate(absolute({ type: "object", properties: { v: schema } }), { v: value }),
  };
}

/** The schema a `$ref` names, or the schema itself. */
export function resolver(doc: Doc) {
  return (schema: Schema): Schema => {
    const ref = schema?.$ref as string | undefined;
    return ref ? doc.components.schemas[ref.split("/").pop()!] : schema;
  };
}

export async function loadDocument(svc: TestContext): Promise<Doc> {
  return await (await svc.request("/openapi.json")).json();
}

export const RELAXED = {
  RATE_LIMIT_PER_HOUR: 1_000_000,
  ANON_RATE_LIMIT_PER_HOUR: 1_000_000,
  KEY_CREATION_PER_MINUTE: 1_000_000,
  WEBHOOK_ALLOW_PRIVATE: "false" as const,
};
