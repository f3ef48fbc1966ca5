/**
 * Names the request's OpenTelemetry span by its route (`GET /api/v1/tasks/:id`): Deno's built-in
 * instrumentation (OTEL_DENO=true) names a Deno.serve span after the method alone, since only the
 * app knows its routes. Costs nothing when telemetry is off: there is no active span then.
 */
import { trace } from "@opentelemetry/api";

/** Renames the active span and sets `http.route` when `route(path)` knows the path. */
export function nameSpanByRoute(
  method: string,
  path: string,
  route: (path: string) => string | null,
): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const template = route(path);
  // An unknown path keeps the method-only name, as the semantic conventions ask: a raw path
  // would make every probe of a random URL a span name of its own.
  if (template === null) return;
  span.updateName(`${method} ${template}`);
  span.setAttribute("http.route", template);
}
