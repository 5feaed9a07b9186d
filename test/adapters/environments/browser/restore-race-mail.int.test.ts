/** Twenty browser restores in a row on every mail task's longest prefix (./restore-race.ts). */
import { restoreRaceTests } from "./restore-race.ts";

restoreRaceTests("mail");
