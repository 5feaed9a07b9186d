/** Webmail tasks: send, reply, forward, archive, delete, star, unread, restore from Trash. */
import { MAIL } from "../apps/layout.ts";
import type { AppsState } from "../apps/state.ts";
import { act, defineBrowserTask, verdict, type AppsCheck, type BrowserTask } from "./types.ts";

const { click, type, done } = act;
const msg = (s: AppsState, id: number) => s.mail.messages.find((m) => m.id === id);
/** Every message whose folder is not the expected one. */
function folders(s: AppsState, want: Record<number, string>): Array<[boolean, string]> {
  return s.mail.messages.map((m) => {
    const expected = want[m.id] ?? (m.id === 7 ? m.folder : "inbox");
    return [m.folder === expected, `message ${m.id} is in ${m.folder}, expected ${expected}`];
  });
}
function sentOnce(s: AppsState, to: string, subject: string, body: (b: string) => boolean): Array<[boolean, string]> {
  const sent = s.mail.sent;
  return [
    [sent.length === 1, `${sent.length} message(s) sent, expected 1`],
    [sent[0]?.to === to, `sent to "${sent[0]?.to}", expected "${to}"`],
    [sent[0]?.subject === subject, `subject "${sent[0]?.subject}", expected "${subject}"`],
    [!!sent[0] && body(sent[0].body), `body ${JSON.stringify(sent[0]?.body ?? "")} is not what was asked`],
  ];
}

/** Webmail tasks with their checkers. */
export const MAIL_TASKS: Array<[BrowserTask, AppsCheck]> = [
  [
    defineBrowserTask({
      id: "mail-send-new",
      app: "mail",
      path: "/mail",
      instruction:
        "Send an email to team@acme.test with the subject 'Standup moved' and the message 'Standup is at 10:30 today.'",
      plan: [
        click(MAIL.compose),
        click(MAIL.to),
        type("team@acme.test"),
        click(MAIL.subject),
        type("Standup moved"),
        click(MAIL.body),
        type("Standup is at 10:30 today."),
        click(MAIL.send),
        done,
      ],
      mistakes: [
        { atStep: 2, kind: "typo", actions: [type("team@acme.tset")], note: "mistypes the address" },
        { atStep: 7, kind: "premature-done", actions: [done], note: "stops before sending" },
      ],
    }),
    (s) => verdict(sentOnce(s, "team@acme.test", "Standup moved", (b) => b.trim() === "Standup is at 10:30 today.")),
  ],
  [
    defineBrowserTask({
      id: "mail-reply-bob",
      app: "mail",
      path: "/mail",
      instruction: "Reply to Bob's email about lunch with 'Friday works for me.'",
      plan: [
        click(MAIL.row(1)),
        click(MAIL.view.reply),
        click(MAIL.body),
        type("Friday works for me."),
        click(MAIL.send),
        done,
      ],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(MAIL.row(0))], note: "opens Alice's email instead" },
        { atStep: 3, kind: "typo", actions: [type("Friday works for me,")], note: "wrong punctuation" },
      ],
    }),
    (s) => verdict(sentOnce(s, "bob@acme.test", "Re: Lunch on Friday?", (b) => b.trim() === "Friday works for me.")),
  ],
  [
    defineBrowserTask({
      id: "mail-archive-invoice",
      app: "mail",
      path: "/mail",
      instruction: "Archive the email with invoice #4411.",
      plan: [click(MAIL.row(4)), click(MAIL.view.move), done],
      mistakes: [
        { atStep: 0, kind: "wrong-item", actions: [click(MAIL.row(3))], note: "opens Carol's email instead" },
        { atStep: 1, kind: "wrong-item", actions: [click(MAIL.view.delete)], note: "deletes instead of archiving" },
      ],
    }),
    (s) => verdict(folders(s, { 5: "archive" })),
  ],
  [
    defineBrowserTask({
      id: "mail-delete-spam",
      app: "mail",
      path: "/mail",
      instruction: "Delete the prize spam email.",
      plan: [click(MAIL.row(2)), click(MAIL.view.delete), done],
      mistakes: [
        { atStep: 1, kind: "wrong-item", actions: [click(MAIL.view.move)], note: "archives it instead" },
        { atStep: 0, kind: "misclick", actions: [click(MAIL.row(1))], note: "opens the row above" },
      ],
    }),
    (s) => verdict(folders(s, { 3: "trash" })),
  ],
  [
    defineBrowserTask({
      id: "mail-star-carol",
      app: "mail",
      path: "/mail",
      instruction: "Star Carol's email about the maintenance window.",
      plan: [click(MAIL.star(3)), done],
      mistakes: [{ atStep: 0, kind: "wrong-item", actions: [click(MAIL.star(2))], note: "stars the row above" }],
    }),
    (s) => verdict(s.mail.messages.map((m) => [m.starred === (m.id === 4), `message ${m.id} starred=${m.starred}`])),
  ],
  [
    defineBrowserTask({
      id: "mail-forward-report",
      app: "mail",
      path: "/mail",
      instruction: "Forward Alice's quarterly report email to finance@acme.test.",
      plan: [
        click(MAIL.row(0)),
        click(MAIL.view.forward),
        click(MAIL.to),
        type("finance@acme.test"),
        click(MAIL.send),
        done,
      ],
      mistakes: [
        { atStep: 3, kind: "typo", actions: [type("finance@acme.tst")], note: "mistypes the address" },
        { atStep: 1, kind: "wrong-item", actions: [click(MAIL.view.reply)], note: "replies instead of forwarding" },
      ],
    }),
    (s) => verdict(sentOnce(s, "finance@acme.test", "Fwd: Quarterly report", (b) => b.includes("Q3 report"))),
  ],
  [
    defineBrowserTask({
      id: "mail-unread-newsletter",
      app: "mail",
      path: "/mail",
      instruction: "Mark the weekly digest newsletter as unread, without opening other emails.",
      plan: [click(MAIL.row(5)), click(MAIL.view.unread), done],
      mistakes: [{ atStep: 0, kind: "wrong-item", actions: [click(MAIL.row(4))], note: "opens the invoice instead" }],
    }),
    (s) => verdict(s.mail.messages.map((m) => [!m.read, `message ${m.id} is marked read`])),
  ],
  [
    defineBrowserTask({
      id: "mail-archive-two",
      app: "mail",
      path: "/mail",
      instruction: "Archive both Alice's quarterly report and Carol's maintenance email.",
      // After the first archive Carol's email moves up one row.
      plan: [click(MAIL.row(0)), click(MAIL.view.move), click(MAIL.row(2)), click(MAIL.view.move), done],
      mistakes: [
        {
          atStep: 2,
          kind: "latent",
          actions: [click(MAIL.row(3))],
          note: "clicks Carol's old row, which now holds the invoice",
        },
        { atStep: 4, kind: "premature-done", actions: [done], note: "stops after one" },
      ],
    }),
    (s) => verdict(folders(s, { 1: "archive", 4: "archive" })),
  ],
  [
    defineBrowserTask({
      id: "mail-restore-contract",
      app: "mail",
      path: "/mail?folder=trash",
      fixture: "trash-contract",
      instruction: "The contract draft from Erin was deleted by mistake: move it back to the inbox.",
      plan: [click(MAIL.row(0)), click(MAIL.view.move), done],
      mistakes: [{ atStep: 1, kind: "wrong-item", actions: [click(MAIL.view.delete)], note: "deletes it again" }],
    }),
    (s) =>
      verdict([
        [msg(s, 7)?.folder === "inbox", `the contract is in ${msg(s, 7)?.folder}`],
        ...folders(s, { 7: "inbox" }),
      ]),
  ],
  [
    defineBrowserTask({
      id: "mail-reply-carol-archive",
      app: "mail",
      path: "/mail",
      instruction: "Reply 'Thanks, noted.' to Carol's maintenance email, then archive it.",
      plan: [
        click(MAIL.row(3)),
        click(MAIL.view.reply),
        click(MAIL.body),
        type("Thanks, noted."),
        click(MAIL.send),
        click(MAIL.folder.inbox),
        click(MAIL.row(3)),
        click(MAIL.view.move),
        done,
      ],
      mistakes: [
        { atStep: 3, kind: "typo", actions: [type("Thanks, noted")], note: "drops the full stop" },
        { atStep: 5, kind: "premature-done", actions: [done], note: "forgets to archive" },
      ],
      tags: ["multi-part"],
    }),
    (s) =>
      verdict([
        ...sentOnce(s, "carol@acme.test", "Re: Server maintenance window", (b) => b.trim() === "Thanks, noted."),
        ...folders(s, { 4: "archive" }),
      ]),
  ],
];
