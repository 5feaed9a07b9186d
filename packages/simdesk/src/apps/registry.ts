/** The app modules by id. */
import type { AppId } from "../types.ts";
import type { AppModule } from "./app.ts";
import { editorApp } from "./editor.ts";
import { filesApp } from "./files.ts";
import { settingsApp } from "./settings.ts";
import { sheetApp } from "./sheet.ts";

export const APP_MODULES: Record<AppId, AppModule> = {
  files: filesApp,
  editor: editorApp,
  settings: settingsApp,
  sheet: sheetApp,
};
