/** File manager tasks: rename, Trash, restore, new folder, move, copy. */
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { home, NOTES, TODO } from "./common.ts";

const DRAFT = "first draft\n";

const defs: TaskDef[] = [
  {
    id: "files-rename-draft",
    instruction: "In Documents, rename draft.txt to final.txt.",
    apps: ["files"],
    setup: home({ "~/Documents/draft.txt": DRAFT }),
    checks: [{ kind: "absent", path: "~/Documents/draft.txt" }, { kind: "file", path: "~/Documents/final.txt", text: DRAFT }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents");
      b.mistake("wrong-item", "selected notes.txt instead of draft.txt", (m) => m.item("notes.txt"));
      b.item("draft.txt").press("f2").type("final.txt").press("enter");
    },
  },
  {
    id: "files-rename-folder",
    instruction: "In Pictures, rename the folder 'Old Photos' to 'Photos 2023'.",
    apps: ["files"],
    setup: home({ "~/Pictures/Old Photos/beach.png": "PNG beach", "~/Pictures/Old Photos/hill.png": "PNG hill", "~/Pictures/Scans": null }),
    checks: [{ kind: "absent", path: "~/Pictures/Old Photos" }, { kind: "file", path: "~/Pictures/Photos 2023/beach.png" }, { kind: "file", path: "~/Pictures/Photos 2023/hill.png" }, { kind: "dir", path: "~/Pictures/Photos 2023" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Pictures");
      b.mistake("wrong-item", "selected the Scans folder", (m) => m.item("Scans"));
      b.item("Old Photos").press("f2").type("Photos 2023").press("enter");
    },
  },
  {
    id: "files-rename-context-menu",
    instruction: "Using the right-click menu, rename todo.txt in Documents to tasks.txt.",
    apps: ["files"],
    setup: home(),
    checks: [{ kind: "absent", path: "~/Documents/todo.txt" }, { kind: "file", path: "~/Documents/tasks.txt", text: TODO }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").right("files.item.todo.txt");
      b.mistake("wrong-item", "chose Move to Trash instead of Rename (recover: restore from Trash)", (m) => m.click("menu.item.Move to Trash"));
      b.click("menu.item.Rename").type("tasks.txt").press("enter");
    },
  },
  {
    id: "files-trash-two",
    instruction: "Move old-invoice.pdf and setup.log from Downloads to the Trash. Keep invoice-2024.pdf.",
    apps: ["files"],
    setup: home(),
    checks: [
      { kind: "in-trash", from: "~/Downloads/old-invoice.pdf" },
      { kind: "in-trash", from: "~/Downloads/setup.log" },
      { kind: "absent", path: "~/Downloads/old-invoice.pdf" },
      { kind: "absent", path: "~/Downloads/setup.log" },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("files").place("Downloads");
      b.mistake("wrong-item", "selected invoice-2024.pdf (recover: restore from Trash)", (m) => m.item("invoice-2024.pdf"));
      b.item("old-invoice.pdf").press("delete").item("setup.log").press("delete");
    },
  },
  {
    id: "files-trash-drag",
    instruction: "Drag cat-blurry.png from Pictures onto Trash in the sidebar, then open the Trash to check.",
    apps: ["files"],
    setup: home({ "~/Pictures/cat-blurry.png": "PNG blurry" }),
    checks: [{ kind: "in-trash", from: "~/Pictures/cat-blurry.png" }, { kind: "file", path: "~/Pictures/cat.png" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Pictures");
      b.mistake("wrong-item", "grabbed cat.png instead", (m) => m.moveTo("files.item.cat.png"));
      b.moveTo("files.item.cat-blurry.png").dragTo("files.place.Trash").place("Trash");
    },
  },
  {
    id: "files-trash-menu",
    instruction: "Use Edit > Move to Trash to delete readme.txt from the Desktop folder.",
    apps: ["files"],
    setup: home({ "~/Desktop/keep.txt": "keep me\n" }),
    checks: [{ kind: "in-trash", from: "~/Desktop/readme.txt" }, { kind: "absent", path: "~/Desktop/readme.txt" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Desktop");
      b.mistake("wrong-item", "selected keep.txt", (m) => m.item("keep.txt"));
      b.item("readme.txt").menu("files", "Edit", "Move to Trash");
    },
  },
  {
    id: "files-restore-report",
    instruction: "Restore report-draft.txt from the Trash (leave junk.tmp there), then open Documents.",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home({}, { trash: [{ from: "~/Documents/report-draft.txt", text: "draft of the report\n" }, { from: "~/Downloads/junk.tmp", text: "junk" }] }),
    checks: [{ kind: "file", path: "~/Documents/report-draft.txt", text: "draft of the report\n" }, { kind: "in-trash", from: "~/Downloads/junk.tmp" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Trash");
      b.mistake("wrong-item", "selected junk.tmp", (m) => m.item("junk.tmp"));
      b.item("report-draft.txt");
      b.mistake("wrong-item", "clicked Empty Trash and confirmed: irreversible", (m) => m.click("files.toolbar.empty").click("dialog.btn.empty"));
      b.click("files.toolbar.restore").place("Documents");
    },
  },
  {
    id: "files-restore-context",
    instruction: "Restore photo-old.png from the Trash using the right-click menu, then go to Pictures.",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home({}, { trash: [{ from: "~/Pictures/photo-old.png", text: "PNG old" }, { from: "~/Documents/scratch.txt", text: "scratch\n" }] }),
    checks: [{ kind: "file", path: "~/Pictures/photo-old.png" }, { kind: "in-trash", from: "~/Documents/scratch.txt" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Trash").right("files.item.photo-old.png");
      b.mistake("wrong-item", "chose Delete Permanently and confirmed: irreversible", (m) => m.click("menu.item.Delete Permanently").click("dialog.btn.delete"));
      b.click("menu.item.Restore").place("Pictures");
    },
  },
  {
    id: "files-restore-two",
    instruction: "Restore both a.txt and b.txt from the Trash, but leave c.txt in the Trash.",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home({}, { trash: [{ from: "~/Documents/a.txt", text: "A\n" }, { from: "~/Documents/b.txt", text: "B\n" }, { from: "~/Documents/c.txt", text: "C\n" }] }),
    checks: [{ kind: "file", path: "~/Documents/a.txt", text: "A\n" }, { kind: "file", path: "~/Documents/b.txt", text: "B\n" }, { kind: "in-trash", from: "~/Documents/c.txt" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Trash").item("a.txt").click("files.toolbar.restore");
      b.mistake("wrong-item", "selected c.txt", (m) => m.item("c.txt"));
      b.item("b.txt");
      b.mistake("wrong-item", "emptied the Trash instead of restoring: irreversible", (m) => m.click("files.toolbar.empty").click("dialog.btn.empty"));
      b.click("files.toolbar.restore").place("Documents");
    },
  },
  {
    id: "files-new-folder-drag",
    instruction: "In Documents, create a folder named Archive and drag notes.txt and todo.txt into it.",
    apps: ["files"],
    setup: home(),
    checks: [
      { kind: "dir", path: "~/Documents/Archive" },
      { kind: "file", path: "~/Documents/Archive/notes.txt", text: NOTES },
      { kind: "file", path: "~/Documents/Archive/todo.txt", text: TODO },
      { kind: "absent", path: "~/Documents/notes.txt" },
      { kind: "absent", path: "~/Documents/todo.txt" },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("files").place("Documents").click("files.toolbar.newFolder");
      b.mistake("wrong-item", "cancelled the New Folder dialog", (m) => m.click("dialog.btn.cancel"));
      b.type("Archive").click("dialog.btn.create");
      b.mistake("wrong-item", "grabbed report.txt instead of notes.txt", (m) => m.moveTo("files.item.report.txt"));
      b.moveTo("files.item.notes.txt").dragTo("files.item.Archive").moveTo("files.item.todo.txt").dragTo("files.item.Archive");
    },
  },
  {
    id: "files-new-folder-cut-paste",
    instruction: "Create a folder Logs in Documents, then move setup.log from Downloads into it with cut and paste.",
    apps: ["files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/Logs/setup.log" }, { kind: "absent", path: "~/Downloads/setup.log" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").hotkey("ctrl", "shift", "n").type("Logs\n").place("Downloads").item("setup.log");
      b.mistake("wrong-item", "copied (Ctrl+C) instead of cutting, so the original stays", (m) => m.hotkey("ctrl", "c"));
      b.hotkey("ctrl", "x").place("Documents").open("Logs").hotkey("ctrl", "v");
    },
  },
  {
    id: "files-restore-then-empty",
    instruction: "Restore notes-old.txt from the Trash, then empty the Trash.",
    apps: ["files"],
    tags: ["irreversible"],
    setup: home({}, { trash: [{ from: "~/Documents/notes-old.txt", text: "old notes\n" }, { from: "~/Downloads/tmp.bin", text: "tmp" }] }),
    checks: [{ kind: "file", path: "~/Documents/notes-old.txt", text: "old notes\n" }, { kind: "trash-empty" }, { kind: "absent", path: "~/Downloads/tmp.bin" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Trash").item("notes-old.txt");
      b.mistake("wrong-item", "emptied the Trash before restoring: irreversible", (m) => m.click("files.toolbar.empty").click("dialog.btn.empty"));
      b.click("files.toolbar.restore").click("files.toolbar.empty").click("dialog.btn.empty");
    },
  },
  {
    id: "files-copy-readme",
    instruction: "Copy readme.txt from the Desktop folder into Documents (keep the original).",
    apps: ["files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Desktop/readme.txt" }, { kind: "file", path: "~/Documents/readme.txt", text: "Welcome to SimDesk\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Desktop").item("readme.txt");
      b.mistake("wrong-item", "cut instead of copy: the original moves", (m) => m.hotkey("ctrl", "x"));
      b.hotkey("ctrl", "c").place("Documents").hotkey("ctrl", "v");
    },
  },
  {
    id: "files-copy-folder-context",
    instruction: "Copy the folder Recipes from Documents to the Desktop folder using the right-click menu.",
    apps: ["files"],
    setup: home({ "~/Documents/Recipes/soup.txt": "soup\n", "~/Documents/Recipes/cake.txt": "cake\n" }),
    checks: [{ kind: "file", path: "~/Desktop/Recipes/soup.txt", text: "soup\n" }, { kind: "file", path: "~/Desktop/Recipes/cake.txt", text: "cake\n" }, { kind: "file", path: "~/Documents/Recipes/cake.txt" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").right("files.item.Recipes");
      b.mistake("wrong-item", "chose Cut instead of Copy", (m) => m.click("menu.item.Cut"));
      b.click("menu.item.Copy").place("Desktop").right("files.list").click("menu.item.Paste");
    },
  },
  {
    id: "files-nested-rename",
    instruction: "In Documents/Projects/alpha, rename todo.txt to done.txt.",
    apps: ["files"],
    setup: home({ "~/Documents/Projects/alpha/todo.txt": "alpha todo\n", "~/Documents/Projects/beta/todo.txt": "beta todo\n" }),
    checks: [{ kind: "file", path: "~/Documents/Projects/alpha/done.txt", text: "alpha todo\n" }, { kind: "absent", path: "~/Documents/Projects/alpha/todo.txt" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("Projects");
      b.mistake("wrong-item", "opened beta instead of alpha", (m) => m.open("beta"));
      b.open("alpha").item("todo.txt").press("f2").type("done.txt").press("enter");
    },
  },
];

export const FILES_TASKS = defs.map(defineSimDeskTask);
