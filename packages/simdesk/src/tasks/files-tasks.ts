/** File manager tasks: rename, Trash, restore, new folder, move, copy. */
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { absent, dir, file, home, inTrash, NOTES, TODO, TRASH_EMPTY, UNCHANGED } from "./common.ts";

const DRAFT = "first draft\n";

const defs: TaskDef[] = [
  {
    id: "files-rename-draft",
    apps: ["files"],
    setup: home({ "~/Documents/draft.txt": DRAFT }),
    instruction: "In Documents, rename draft.txt to final.txt.",
    checks: [absent("~/Documents/draft.txt"), file("~/Documents/final.txt", DRAFT), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .mistake("wrong-item", "selected notes.txt instead of draft.txt", (m) => m.item("notes.txt"))
        .item("draft.txt")
        .press("f2")
        .type("final.txt")
        .press("enter"),
  },
  {
    id: "files-rename-folder",
    apps: ["files"],
    setup: home({
      "~/Pictures/Old Photos/beach.png": "PNG beach",
      "~/Pictures/Old Photos/hill.png": "PNG hill",
      "~/Pictures/Scans": null,
    }),
    instruction: "In Pictures, rename the folder 'Old Photos' to 'Photos 2023'.",
    checks: [
      absent("~/Pictures/Old Photos"),
      file("~/Pictures/Photos 2023/beach.png"),
      file("~/Pictures/Photos 2023/hill.png"),
      dir("~/Pictures/Photos 2023"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Pictures")
        .mistake("wrong-item", "selected the Scans folder", (m) => m.item("Scans"))
        .item("Old Photos")
        .press("f2")
        .type("Photos 2023")
        .press("enter"),
  },
  {
    id: "files-rename-context-menu",
    apps: ["files"],
    setup: home(),
    instruction: "Using the right-click menu, rename todo.txt in Documents to tasks.txt.",
    checks: [absent("~/Documents/todo.txt"), file("~/Documents/tasks.txt", TODO), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .right("files.item.todo.txt")
        .mistake("wrong-item", "chose Move to Trash instead of Rename (recover: restore from Trash)", (m) =>
          m.click("menu.item.Move to Trash"),
        )
        .click("menu.item.Rename")
        .type("tasks.txt")
        .press("enter"),
  },
  {
    id: "files-trash-two",
    apps: ["files"],
    setup: home(),
    instruction: "Move old-invoice.pdf and setup.log from Downloads to the Trash. Keep invoice-2024.pdf.",
    checks: [
      inTrash("~/Downloads/old-invoice.pdf"),
      inTrash("~/Downloads/setup.log"),
      absent("~/Downloads/old-invoice.pdf"),
      absent("~/Downloads/setup.log"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Downloads")
        .mistake("wrong-item", "selected invoice-2024.pdf (recover: restore from Trash)", (m) =>
          m.item("invoice-2024.pdf"),
        )
        .item("old-invoice.pdf")
        .press("delete")
        .item("setup.log")
        .press("delete"),
  },
  {
    id: "files-trash-drag",
    apps: ["files"],
    setup: home({ "~/Pictures/cat-blurry.png": "PNG blurry" }),
    instruction: "Drag cat-blurry.png from Pictures onto Trash in the sidebar, then open the Trash to check.",
    checks: [inTrash("~/Pictures/cat-blurry.png"), file("~/Pictures/cat.png"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Pictures")
        .mistake("wrong-item", "grabbed cat.png instead", (m) => m.moveTo("files.item.cat.png"))
        .moveTo("files.item.cat-blurry.png")
        .dragTo("files.place.Trash")
        .place("Trash"),
  },
  {
    id: "files-trash-menu",
    apps: ["files"],
    setup: home({ "~/Desktop/keep.txt": "keep me\n" }),
    instruction: "Use Edit > Move to Trash to delete readme.txt from the Desktop folder.",
    checks: [inTrash("~/Desktop/readme.txt"), absent("~/Desktop/readme.txt"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Desktop")
        .mistake("wrong-item", "selected keep.txt", (m) => m.item("keep.txt"))
        .item("readme.txt")
        .menu("files", "Edit", "Move to Trash"),
  },
  {
    id: "files-restore-report",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home(
      {},
      {
        trash: [
          { from: "~/Documents/report-draft.txt", text: "draft of the report\n" },
          { from: "~/Downloads/junk.tmp", text: "junk" },
        ],
      },
    ),
    instruction: "Restore report-draft.txt from the Trash (leave junk.tmp there), then open Documents.",
    checks: [file("~/Documents/report-draft.txt", "draft of the report\n"), inTrash("~/Downloads/junk.tmp"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Trash")
        .mistake("wrong-item", "selected junk.tmp", (m) => m.item("junk.tmp"))
        .item("report-draft.txt")
        .mistake("wrong-item", "clicked Empty Trash and confirmed: irreversible", (m) =>
          m.click("files.toolbar.empty").click("dialog.btn.empty"),
        )
        .click("files.toolbar.restore")
        .place("Documents"),
  },
  {
    id: "files-restore-context",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home(
      {},
      {
        trash: [
          { from: "~/Pictures/photo-old.png", text: "PNG old" },
          { from: "~/Documents/scratch.txt", text: "scratch\n" },
        ],
      },
    ),
    instruction: "Restore photo-old.png from the Trash using the right-click menu, then go to Pictures.",
    checks: [file("~/Pictures/photo-old.png"), inTrash("~/Documents/scratch.txt"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Trash")
        .right("files.item.photo-old.png")
        .mistake("wrong-item", "chose Delete Permanently and confirmed: irreversible", (m) =>
          m.click("menu.item.Delete Permanently").click("dialog.btn.delete"),
        )
        .click("menu.item.Restore")
        .place("Pictures"),
  },
  {
    id: "files-restore-two",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home(
      {},
      {
        trash: [
          { from: "~/Documents/a.txt", text: "A\n" },
          { from: "~/Documents/b.txt", text: "B\n" },
          { from: "~/Documents/c.txt", text: "C\n" },
        ],
      },
    ),
    instruction: "Restore both a.txt and b.txt from the Trash, but leave c.txt in the Trash.",
    checks: [
      file("~/Documents/a.txt", "A\n"),
      file("~/Documents/b.txt", "B\n"),
      inTrash("~/Documents/c.txt"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Trash")
        .item("a.txt")
        .click("files.toolbar.restore")
        .mistake("wrong-item", "selected c.txt", (m) => m.item("c.txt"))
        .item("b.txt")
        .mistake("wrong-item", "emptied the Trash instead of restoring: irreversible", (m) =>
          m.click("files.toolbar.empty").click("dialog.btn.empty"),
        )
        .click("files.toolbar.restore")
        .place("Documents"),
  },
  {
    id: "files-new-folder-drag",
    apps: ["files"],
    setup: home(),
    instruction: "In Documents, create a folder named Archive and drag notes.txt and todo.txt into it.",
    checks: [
      dir("~/Documents/Archive"),
      file("~/Documents/Archive/notes.txt", NOTES),
      file("~/Documents/Archive/todo.txt", TODO),
      absent("~/Documents/notes.txt"),
      absent("~/Documents/todo.txt"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .click("files.toolbar.newFolder")
        .mistake("wrong-item", "cancelled the New Folder dialog", (m) => m.click("dialog.btn.cancel"))
        .type("Archive")
        .click("dialog.btn.create")
        .mistake("wrong-item", "grabbed report.txt instead of notes.txt", (m) => m.moveTo("files.item.report.txt"))
        .moveTo("files.item.notes.txt")
        .dragTo("files.item.Archive")
        .moveTo("files.item.todo.txt")
        .dragTo("files.item.Archive"),
  },
  {
    id: "files-new-folder-cut-paste",
    apps: ["files"],
    setup: home(),
    instruction: "Create a folder Logs in Documents, then move setup.log from Downloads into it with cut and paste.",
    checks: [file("~/Documents/Logs/setup.log"), absent("~/Downloads/setup.log"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .hotkey("ctrl", "shift", "n")
        .type("Logs\n")
        .place("Downloads")
        .item("setup.log")
        .mistake("wrong-item", "copied (Ctrl+C) instead of cutting, so the original stays", (m) =>
          m.hotkey("ctrl", "c"),
        )
        .hotkey("ctrl", "x")
        .place("Documents")
        .open("Logs")
        .hotkey("ctrl", "v"),
  },
  {
    id: "files-restore-then-empty",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home(
      {},
      {
        trash: [
          { from: "~/Documents/notes-old.txt", text: "old notes\n" },
          { from: "~/Downloads/tmp.bin", text: "tmp" },
        ],
      },
    ),
    instruction: "Restore notes-old.txt from the Trash, then empty the Trash.",
    checks: [file("~/Documents/notes-old.txt", "old notes\n"), TRASH_EMPTY, absent("~/Downloads/tmp.bin"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Trash")
        .item("notes-old.txt")
        .mistake("wrong-item", "emptied the Trash before restoring: irreversible", (m) =>
          m.click("files.toolbar.empty").click("dialog.btn.empty"),
        )
        .click("files.toolbar.restore")
        .click("files.toolbar.empty")
        .click("dialog.btn.empty"),
  },
  {
    id: "files-copy-readme",
    apps: ["files"],
    setup: home(),
    instruction: "Copy readme.txt from the Desktop folder into Documents (keep the original).",
    checks: [file("~/Desktop/readme.txt"), file("~/Documents/readme.txt", "Welcome to SimDesk\n"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Desktop")
        .item("readme.txt")
        .mistake("wrong-item", "cut instead of copy: the original moves", (m) => m.hotkey("ctrl", "x"))
        .hotkey("ctrl", "c")
        .place("Documents")
        .hotkey("ctrl", "v"),
  },
  {
    id: "files-copy-folder-context",
    apps: ["files"],
    setup: home({ "~/Documents/Recipes/soup.txt": "soup\n", "~/Documents/Recipes/cake.txt": "cake\n" }),
    instruction: "Copy the folder Recipes from Documents to the Desktop folder using the right-click menu.",
    checks: [
      file("~/Desktop/Recipes/soup.txt", "soup\n"),
      file("~/Desktop/Recipes/cake.txt", "cake\n"),
      file("~/Documents/Recipes/cake.txt"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .right("files.item.Recipes")
        .mistake("wrong-item", "chose Cut instead of Copy", (m) => m.click("menu.item.Cut"))
        .click("menu.item.Copy")
        .place("Desktop")
        .right("files.list")
        .click("menu.item.Paste"),
  },
  {
    id: "files-nested-rename",
    apps: ["files"],
    setup: home({
      "~/Documents/Projects/alpha/todo.txt": "alpha todo\n",
      "~/Documents/Projects/beta/todo.txt": "beta todo\n",
    }),
    instruction: "In Documents/Projects/alpha, rename todo.txt to done.txt.",
    checks: [
      file("~/Documents/Projects/alpha/done.txt", "alpha todo\n"),
      absent("~/Documents/Projects/alpha/todo.txt"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("Projects")
        .mistake("wrong-item", "opened beta instead of alpha", (m) => m.open("beta"))
        .open("alpha")
        .item("todo.txt")
        .press("f2")
        .type("done.txt")
        .press("enter"),
  },
];

/** The tasks, built (each plan recorded by running the engine) on first use, not at import. */
export const filesTasks = (): SimDeskTask[] => defs.map(defineSimDeskTask);
