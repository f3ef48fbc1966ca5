/** The live event suite on real processes sharing one store, with `watch` taken away in each. */
import { liveFleetSuite } from "./live_fleet_suite.ts";

liveFleetSuite("without watch", { preloads: ["without_kv_watch.ts"] });
