/** Twenty browser restores in a row on every admin task's longest prefix (./restore-race.ts). */
import { restoreRaceTests } from "./restore-race.ts";

restoreRaceTests("admin");
