/**
 * The little markdown the OpenAPI document's descriptions use, rendered as HTML for the /docs
 * page (routes/reference/docs_page.ts), with the escaping every rendered text goes through.
 */

export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** Inline markdown: `code`, **bold**. */
export function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/** The little markdown the document's descriptions use: headings, lists, tables, paragraphs. */
export function markdown(text: string): string {
  const out: string[] = [];
  const blocks = text.split(/\n\s*\n/);
  for (const block of blocks) {
    const lines = block.trim().split("\n");
    if (lines[0].startsWith("## ")) {
      out.push(`<h3>${inline(lines[0].slice(3))}</h3>`);
      lines.shift();
      if (lines.length === 0) continue;
    }
    if (lines.every((l) => l.startsWith("|"))) {
      const cells = (l: string) => l.replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
      const [head, , ...rows] = lines;
      out.push(
        `<table><thead><tr>${cells(head).map((c) => `<th>${inline(c)}</th>`).join("")}</tr>` +
          `</thead><tbody>${
            rows.map((r) => `<tr>${cells(r).map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`)
              .join("")
          }</tbody></table>`,
      );
    } else if (lines[0].startsWith("- ")) {
      const items = lines.join("\n").split(/\n(?=- )/).map((i) =>
        i.slice(2).replace(/\n\s*/g, " ")
      );
      out.push(`<ul>${items.map((i) => `<li>${inline(i)}</li>`).join("")}</ul>`);
    } else {
      out.push(`<p>${inline(lines.join(" "))}</p>`);
    }
  }
  return out.join("\n");
}
