/**
 * The peer bench's own install step (never CI's): PostgreSQL 15 and PostGIS 3 from Debian's
 * packages where they are missing, as root through apt-get.
 */
import { missingPeer } from "./pg_cluster.ts";

const PACKAGES = ["postgresql-15", "postgresql-15-postgis-3"];

async function apt(args: string[]): Promise<boolean> {
  const out = await new Deno.Command("apt-get", {
    args,
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "null",
    stderr: "inherit",
  }).output();
  return out.success;
}

/** Installs what is missing; throws, saying what, when it still is. */
export async function ensurePostgis(log: (line: string) => void): Promise<void> {
  const missing = await missingPeer();
  if (missing === null) return;
  if (Deno.uid() !== 0) throw new Error(`${missing}, and installing it needs root`);
  log(`${missing}: installing ${PACKAGES.join(" ")} from Debian`);
  if (!await apt(["install", "-y", "-qq", ...PACKAGES])) {
    await apt(["update", "-qq"]);
    await apt(["install", "-y", "-qq", ...PACKAGES]);
  }
  const still = await missingPeer();
  if (still !== null) throw new Error(`${still} after apt-get install`);
}
