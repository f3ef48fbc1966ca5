/**
 * The interactive reference at /docs: one self-contained HTML page rendered from the OpenAPI
 * document (no CDN, no framework), with a "try it" form per operation that calls the live API.
 */
import { SCRIPT, STYLE } from "./docs_page_assets.ts";
import { escapeHtml, inline, markdown } from "./docs_markdown.ts";
import { constraints, exampleOf, type Schema, schemaTree, typeLabel } from "./docs_schema.ts";
import type { OpenApiDocument } from "./openapi.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, {
    description: string;
    headers?: Record<string, unknown>;
    content?: Record<string, { schema: Schema }>;
  }>;
}

/** "No credential", "session token only", or the scope an API key needs. */
export function accessOf(op: Operation): string {
  const security = op.security ?? [];
  if (security.length === 0 || security.some((s) => Object.keys(s).length === 0)) {
    return "No credential needed (one that is sent is still checked)";
  }
  if (security.every((s) => "SessionToken" in s && Object.keys(s).length === 1)) {
    return "Session token only";
  }
  const scope = security.find((s) => s.ApiKeyHeader)?.ApiKeyHeader?.[0];
  return scope
    ? `API key with scope <code>${escapeHtml(scope)}</code>, or a session token`
    : "Any credential";
}

function renderOperation(
  doc: OpenApiDocument,
  { method, path, op }: { method: string; path: string; op: Operation },
) {
  const params = op.parameters ?? [];
  const bodySchema = op.requestBody?.content["application/json"]?.schema;
  const rows = params.map((p) =>
    `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td>` +
    `<td>${p.schema ? typeLabel(p.schema) : ""} ${p.schema ? constraints(p.schema) : ""}</td>` +
    `<td>${p.required ? "yes" : ""}</td><td>${inline(p.description ?? "")}</td></tr>`
  ).join("");
  const responses = Object.entries(op.responses).map(([status, r]) => {
    const [type, media] = Object.entries(r.content ?? {})[0] ?? [];
    const headers = Object.keys(r.headers ?? {}).filter((h) => h !== "X-Request-Id");
    return `<li><span class="status s${status[0]}">${status}</span> ${inline(r.description)}` +
      (media ? ` <span class="type">${escapeHtml(type!)} ${typeLabel(media.schema)}</span>` : "") +
      (headers.length
        ? ` <span class="desc">headers: ${headers.map((h) => `<code>${h}</code>`).join(" ")}</span>`
        : "") +
      "</li>";
  }).join("");
  const inputs = params.map((p) =>
    `<label>${escapeHtml(p.name)} <small>(${p.in})</small><input name="${escapeHtml(p.name)}" ` +
    `data-in="${p.in}"${p.required ? " required" : ""}></label>`
  ).join("");
  const body = bodySchema
    ? `<label>JSON body<textarea name="__body" rows="6">${
      escapeHtml(JSON.stringify(exampleOf(doc, bodySchema), null, 2))
    }</textarea></label>`
    : "";
  return `<section class="op" id="${escapeHtml(op.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${
    escapeHtml(path)
  }</code></h3>
<p>${inline(op.summary ?? "")}</p>
<p class="access">${accessOf(op)}</p>
${
    rows
      ? `<table><thead><tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
      : ""
  }
${bodySchema ? `<h4>Request body ${typeLabel(bodySchema)}</h4>${schemaTree(doc, bodySchema)}` : ""}
<h4>Responses</h4><ul class="responses">${responses}</ul>
<details class="try"><summary>Try it</summary>
<form data-method="${method}" data-path="${escapeHtml(path)}" data-root="${
    "servers" in (doc.paths?.[path] ?? {}) ? "1" : ""
  }">${inputs}${body}<button type="submit">Send</button></form>
<pre class="result" hidden></pre></details>
</section>`;
}

function renderSchemas(doc: OpenApiDocument): string {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  return Object.entries(schemas).map(([name, schema]) =>
    `<section class="schema" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>` +
    `${schema.description ? `<p>${inline(String(schema.description))}</p>` : ""}` +
    `<p class="type">${typeLabel({ ...schema, $ref: null })} ${constraints(schema)}</p>` +
    `${schemaTree(doc, schema, 0)}</section>`
  ).join("\n");
}

/** The whole page for a document. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as Operation | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  }
  const tagOrder = (doc.tags ?? []).map((t) => t.name).filter((t) => byTag.has(t));
  for (const tag of byTag.keys()) if (!tagOrder.includes(tag)) tagOrder.push(tag);
  const nav = tagOrder.map((tag) =>
    `<h4>${escapeHtml(tag)}</h4>` +
    byTag.get(tag)!.map(({ method, path, op }) =>
      `<a href="#${escapeHtml(op.operationId)}"><b>${method.toUpperCase()}</b> ${
        escapeHtml(path)
      }</a>`
    ).join("")
  ).join("");
  const sections = tagOrder.map((tag) =>
    `<h2>${escapeHtml(tag)}</h2>` +
    byTag.get(tag)!.map((entry) => renderOperation(doc, entry)).join("")
  ).join("\n");
  const servers = (doc.servers ?? []).map((s) =>
    `<option value="${escapeHtml(s.url)}">${escapeHtml(s.url)}${
      s.description ? ` (${escapeHtml(s.description)})` : ""
    }</option>`
  ).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.info.title)} reference</title>
<link rel="icon" href="/favicon.ico">
<style>${STYLE}</style></head>
<body><nav><strong>${escapeHtml(doc.info.title)}</strong>
<a href="/dashboard">Dashboard</a><a href="/openapi.json">openapi.json</a>${nav}<h4>Schemas</h4>${
    Object.keys(doc.components?.schemas ?? {}).map((n) =>
      `<a href="#schema-${escapeHtml(n)}">${escapeHtml(n)}</a>`
    ).join("")
  }</nav>
<main><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
${markdown(doc.info.description ?? "")}
<h2>Try it</h2>
<div id="auth"><label>Server <select id="server">${servers}</select></label>
<label>Credential (API key or session token) <input id="credential" autocomplete="off"></label>
<label>Send it as <select id="scheme"><option>X-API-Key</option>
<option value="Bearer">Authorization: Bearer</option></select></label>
<small>Kept in this page's memory only: never stored, gone when the page is closed or reloaded.</small></div>
${sections}
<h2>Schemas</h2>
${renderSchemas(doc)}
</main>
<script>${SCRIPT}</script>
</body></html>`;
}
