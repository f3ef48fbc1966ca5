/** The live event suite on real processes sharing one store, with the store's watch. */
import { liveFleetSuite } from "./live_fleet_suite.ts";

liveFleetSuite("with watch", []);
