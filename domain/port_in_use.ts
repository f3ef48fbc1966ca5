/** The one line the service stops with when its port is taken (`deno task start`, `dev`, `serve`). */

/** Names the port and the ways out: another port, or joining on purpose (SHARE_PORT). */
export function portInUseMessage(port: number): string {
  return `Cannot listen on port ${port}: another program already uses it. Stop it or set PORT to ` +
    "a free port (SHARE_PORT=true lets several instances of this service share one port).";
}
