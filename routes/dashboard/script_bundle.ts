/**
 * Joins the dashboard's script modules into the one module the page loads, at start-up: no build
 * step, one request. Each part is an ES module importing what it uses from the others (so the
 * type check sees every name); in the bundle those imports go and the exports become plain
 * declarations, in the order given, sharing one scope.
 */

/** One script module: its file name (`api.js`) and source. */
export interface ScriptPart {
  name: string;
  source: string;
}

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"\.\/([\w-]+\.js)";\n/gm;
const EXPORT = /^export (?=(?:async )?(?:function|const|let|class)\b)/gm;
const EXPORTED =
  /^export (?:async )?(?:function\*?|const|let|class)\s+(?:([A-Za-z_$][\w$]*)|\{([^}]*)\})/gm;

/**
 * The parts as one module. Imports of modules outside the bundle (`external`, served on their
 * own) stay. Throws at start-up, not in a browser, for an import of a part the bundle does not
 * hold or a name its part does not export, for an import of a part that comes later (so the order
 * given is one the imports allow, and they form no circle), and for an export or import of any
 * other form.
 */
export function bundleScript(parts: ScriptPart[], external: string[] = []): string {
  const exported = new Map(parts.map(({ name, source }) => [name, exportsOf(source)]));
  const position = new Map(parts.map(({ name }, index) => [name, index]));
  return parts.map(({ name, source }, index) => {
    const joined = source.replace(IMPORT, (statement, names: string, from: string) => {
      if (external.includes(from)) return statement;
      const found = exported.get(from);
      if (!found) throw new Error(`${name} imports ${from}, which the dashboard bundle lacks`);
      if (position.get(from)! >= index) {
        throw new Error(`${name} imports ${from}, which the dashboard bundle joins after it`);
      }
      for (const wanted of names.split(",").map((n) => n.trim()).filter(Boolean)) {
        if (!found.has(wanted)) throw new Error(`${name} imports ${wanted}, not in ${from}`);
      }
      return "";
    }).replace(EXPORT, "");
    const left = /^(?:import|export)\b.*$/m.exec(joined.replace(IMPORT, ""));
    if (left) throw new Error(`${name}: the bundle cannot join "${left[0]}"`);
    return joined;
  }).join("\n");
}

/** The names a part exports: `export function f`, `export const x`, `export const { a, b: c }`. */
function exportsOf(source: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, members] of source.matchAll(EXPORTED)) {
    if (name) names.add(name);
    for (const member of members?.split(",") ?? []) {
      const local = member.split(":").at(-1)!.trim();
      if (local) names.add(local);
    }
  }
  return names;
}
