/** Twenty browser restores in a row on every shop task's longest prefix (./restore-race.ts). */
import { restoreRaceTests } from "./restore-race.ts";

restoreRaceTests("shop");
