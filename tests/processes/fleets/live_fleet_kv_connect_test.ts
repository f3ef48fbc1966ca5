/**
 * The live event suite on real processes sharing one KV Connect store (denokv's endpoints): there
 * every process's watch sees every writer, so the feeds watch and do not poll at all.
 */
import { liveFleetSuite } from "./live_fleet_suite.ts";
import { startKvConnectServer } from "../kv_connect_server.ts";

const TOKEN = "live-kv-connect-token-0123";

liveFleetSuite("over KV Connect, watch only", {
  open() {
    const dir = Deno.makeTempDirSync();
    const server = startKvConnectServer({ path: `${dir}/remote.sqlite3`, token: TOKEN });
    return {
      env: { KV_PATH: server.url, DENO_KV_ACCESS_TOKEN: TOKEN },
      close: () => server.close(),
    };
  },
});
