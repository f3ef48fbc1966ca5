/** The live event suite on real processes sharing one file: in-process watch, polled across processes. */
import { liveFleetSuite } from "./live_fleet_suite.ts";

liveFleetSuite("on a file, watch and poll", {});
