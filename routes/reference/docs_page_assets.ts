/**
 * The reference page's inline style and script, and the Content-Security-Policy that allows
 * exactly these two blocks by hash (routes/reference/docs_page.ts renders the page around them).
 */
import { encodeBase64 } from "../../domain/base64.ts";
import { pagePolicy } from "../http/page_policy.ts";

export const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2433;display:flex}
nav{width:270px;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f6fa;padding:1rem;box-sizing:border-box;flex:none}
nav a{display:block;color:inherit;text-decoration:none;font-size:13px;padding:2px 0}
nav h4{margin:1rem 0 .25rem;text-transform:uppercase;font-size:12px;color:#667}
main{padding:1rem 2rem;max-width:980px;flex:1;min-width:0}
code{background:#eef1f6;padding:0 3px;border-radius:3px;font-size:90%}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #dde;padding:3px 8px;text-align:left;font-size:14px}
.op,.schema{border-top:1px solid #dde;padding:.75rem 0}
.method{display:inline-block;min-width:60px;text-align:center;color:#fff;border-radius:4px;font-size:13px;padding:1px 6px}
.get{background:#2772c7}.post{background:#188149}.put{background:#9f630e}.patch{background:#8a5cc7}.delete{background:#d23c3c}
.status{display:inline-block;min-width:34px;font-weight:600}.s2{color:#188149}.s4{color:#9f630e}.s5{color:#d23c3c}
.type{color:#556}.req{color:#d23c3c;font-size:12px}.rules{color:#6b6b7a;font-size:12px}.desc{color:#445;font-size:13px}
.access{font-size:13px;color:#445}.props{margin:.25rem 0;padding-left:1.2rem}
.try form{display:grid;gap:.4rem;max-width:640px}.try input,.try textarea,.try select{width:100%;font:13px monospace;box-sizing:border-box}
.result{background:#111827;color:#e5e7eb;padding:.75rem;overflow:auto;max-height:420px;white-space:pre-wrap}
#auth{display:grid;gap:.4rem;max-width:640px;background:#f4f6fa;padding:.75rem;border-radius:6px}
`;

// Runs in the browser: sends a "try it" form to the live API and shows the raw answer. The
// credential lives in the input only (this page's memory): never in storage, gone on reload.
// Only the server and scheme are remembered; a credential an earlier version stored is dropped.
export const SCRIPT = `
const $ = (s) => document.querySelector(s);
let saved = {};
try { saved = JSON.parse(localStorage.getItem("docs-auth") || "{}") || {}; } catch {}
const remember = () => localStorage.setItem("docs-auth", JSON.stringify({
  scheme: $("#scheme").value, server: $("#server").value,
}));
$("#scheme").value = saved.scheme || "X-API-Key";
$("#server").value = saved.server || $("#server").value;
if ("credential" in saved) remember();
for (const el of ["#scheme", "#server"]) $(el).addEventListener("change", remember);
for (const form of document.querySelectorAll(".try form")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const out = form.parentElement.querySelector(".result");
    out.hidden = false;
    let path = form.dataset.path;
    const query = new URLSearchParams();
    for (const input of form.querySelectorAll("input")) {
      if (input.dataset.in === "path") path = path.replace("{" + input.name + "}", encodeURIComponent(input.value));
      else if (input.dataset.in === "query" && input.value !== "") query.set(input.name, input.value);
    }
    const base = form.dataset.root ? "" : $("#server").value;
    const url = base + path + (query.size ? "?" + query : "");
    const headers = {};
    const credential = $("#credential").value.trim();
    if (credential) {
      if ($("#scheme").value === "X-API-Key") headers["X-API-Key"] = credential;
      else headers["Authorization"] = "Bearer " + credential;
    }
    const init = { method: form.dataset.method.toUpperCase(), headers };
    const body = form.querySelector("textarea");
    if (body) { init.body = body.value; headers["Content-Type"] = "application/json"; }
    out.textContent = init.method + " " + url + " ...";
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch {}
      const head = [...res.headers].map(([k, v]) => k + ": " + v).join("\\n");
      out.textContent = init.method + " " + url + "\\n\\n" + res.status + " " + res.statusText + "\\n" + head + "\\n\\n" + shown;
    } catch (error) {
      out.textContent = "Request failed: " + error;
    }
  });
}
`;

/** A CSP source for one inline block: its SHA-256, so no other inline code may run. */
async function hashSource(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${encodeBase64(new Uint8Array(digest))}'`;
}

/**
 * The page's Content-Security-Policy: its own inline script and style by hash and nothing else
 * inline (otherwise the same as the dashboard's).
 */
export async function docsPagePolicy(): Promise<string> {
  return pagePolicy({ script: await hashSource(SCRIPT), style: await hashSource(STYLE) });
}
