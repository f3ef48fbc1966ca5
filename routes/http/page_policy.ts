/**
 * The Content-Security-Policy of the service's HTML pages (the dashboard, /docs): only the scripts
 * and styles a page names, calls to this origin only, no native form submission, no framing.
 */

/** The policy with `script` and `style` as the page's only script and style sources. */
export function pagePolicy(sources: { script: string; style: string }): string {
  return [
    "default-src 'none'",
    `script-src ${sources.script}`,
    `style-src ${sources.style}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}
