/**
 * Starts Debian's headless Chromium through playwright-core with a fresh profile. A browser that
 * cannot start is an error, never a skipped test: the dashboard test must fail loudly in CI.
 */
import { type BrowserContext, chromium } from "playwright-core";

const EXECUTABLE = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Chromium extends AsyncDisposable {
  context: BrowserContext;
}

/** A browser with a throwaway --user-data-dir, closed (and its profile removed) on dispose. */
export async function launchChromium(): Promise<Chromium> {
  const profile = await Deno.makeTempDir({ prefix: "dashboard-chromium-" });
  let context: BrowserContext;
  try {
    // launchPersistentContext passes the directory as --user-data-dir.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 800 },
      locale: "en-US",
      timezoneId: "UTC",
    });
  } catch (error) {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
    throw new Error(
      `Chromium could not start from ${EXECUTABLE} (install it with ` +
        `"apt-get install -y chromium", or set CHROMIUM_PATH): ${(error as Error).message}`,
    );
  }
  return {
    context,
    async [Symbol.asyncDispose]() {
      await context.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}
