/** The webmail: folders, message view (reply, forward, archive, delete, unread, star), compose. */
import { MAIL } from "./layout.ts";
import type { AppRequest, AppReply } from "./route.ts";
import type { AppsState, MailMessage } from "./state.ts";
import { button, linkBox, page, postButton, text, textArea, textField } from "./ui.ts";

const FOLDERS = ["inbox", "archive", "trash", "sent"] as const;

function chrome(body: string, script = ""): string {
  const nav = FOLDERS.map((f) => linkBox(`/mail?folder=${f}`, f[0].toUpperCase() + f.slice(1), MAIL.folder[f])).join(
    "",
  );
  return page(
    "Webmail",
    [],
    `${nav}${linkBox("/mail/compose", "Compose", MAIL.compose, { bold: true })}${body}`,
    script,
  );
}

function list(state: AppsState, folder: string): string {
  if (folder === "sent") {
    return (
      state.mail.sent.map((s, i) => text(`To: ${s.to}    ${s.subject}`, MAIL.row(i))).join("") ||
      text("No sent messages", MAIL.row(0))
    );
  }
  const msgs = state.mail.messages.filter((m) => m.folder === folder);
  if (!msgs.length) return text(`No messages in ${folder}`, MAIL.row(0));
  return msgs
    .map(
      (m, i) =>
        linkBox(`/mail/m/${m.id}`, `${m.starred ? "★ " : ""}${m.from}    ${m.subject}`, MAIL.row(i), {
          bold: !m.read,
        }) + postButton(`/mail/m/${m.id}/star`, m.starred ? "Unstar" : "Star", MAIL.star(i)),
    )
    .join("");
}

function view(m: MailMessage): string {
  const v = MAIL.view;
  const buttons = [
    linkBox(`/mail/compose?reply=${m.id}`, "Reply", v.reply),
    linkBox(`/mail/compose?forward=${m.id}`, "Forward", v.forward),
    m.folder === "inbox"
      ? postButton(`/mail/m/${m.id}/move?to=archive`, "Archive", v.move)
      : postButton(`/mail/m/${m.id}/move?to=inbox`, "Move to Inbox", v.move),
    postButton(`/mail/m/${m.id}/move?to=trash`, "Delete", v.delete),
    postButton(`/mail/m/${m.id}/unread`, "Mark unread", v.unread),
    postButton(`/mail/m/${m.id}/star`, m.starred ? "Unstar" : "Star", v.star),
  ].join("");
  return (
    buttons +
    text(`From: ${m.from}`, [220, 120, 780, 24]) +
    text(m.subject, [220, 150, 780, 28], { bold: true, role: "heading" }) +
    text(m.body, [220, 190, 780, 200])
  );
}

/** Saves what is typed in the compose form to localStorage (a draft); sending clears it. */
const DRAFT_SCRIPT = `const f=document.getElementById('compose');f.addEventListener('input',()=>localStorage.setItem('mail.draft',JSON.stringify({to:f.to.value,subject:f.subject.value,body:f.body.value})));f.addEventListener('submit',()=>localStorage.removeItem('mail.draft'));`;

function compose(state: AppsState, query: URLSearchParams): string {
  let to = "";
  let subject = "";
  let body = "";
  const reply = state.mail.messages.find((m) => String(m.id) === query.get("reply"));
  const fwd = state.mail.messages.find((m) => String(m.id) === query.get("forward"));
  if (reply) [to, subject] = [reply.from, `Re: ${reply.subject}`];
  if (fwd) [subject, body] = [`Fwd: ${fwd.subject}`, `\n\n---- Forwarded message from ${fwd.from} ----\n${fwd.body}`];
  const form = `<form id="compose" method="post" action="/mail/send" style="margin:0">${textField("to", "To", MAIL.to, to)}${textField("subject", "Subject", MAIL.subject, subject)}${textArea("body", "Message", MAIL.body, body)}${button("Send", MAIL.send, { primary: true })}</form>`;
  return chrome(form, DRAFT_SCRIPT);
}

/** Handle a /mail request. */
export function mailRoute(req: AppRequest, state: AppsState): AppReply {
  const { method, path, query, form } = req;
  if (method === "GET" && path === "/mail") {
    const folder = (FOLDERS as readonly string[]).includes(query.get("folder") ?? "") ? query.get("folder")! : "inbox";
    return {
      html: chrome(`${text(`${folder[0].toUpperCase()}${folder.slice(1)}`, [220, 20, 0, 0])}${list(state, folder)}`),
    };
  }
  if (method === "GET" && path === "/mail/compose") return { html: compose(state, query) };
  if (method === "POST" && path === "/mail/send") {
    state.mail.sent.push({
      to: (form.get("to") ?? "").trim(),
      subject: (form.get("subject") ?? "").trim(),
      body: form.get("body") ?? "",
    });
    return { redirect: "/mail?folder=sent" };
  }
  const m = /^\/mail\/m\/(\d+)(\/(star|move|unread))?$/.exec(path);
  const msg = m ? state.mail.messages.find((x) => x.id === Number(m[1])) : undefined;
  if (!m || !msg) return { status: 404, html: chrome(text("No such message", MAIL.row(0))) };
  if (method === "GET" && !m[3]) {
    msg.read = true;
    return { html: chrome(view(msg)) };
  }
  if (method !== "POST") return { status: 405, html: "method not allowed" };
  const back = req.referer?.includes(`/mail/m/${msg.id}`) ? `/mail/m/${msg.id}` : `/mail?folder=${msg.folder}`;
  if (m[3] === "star") msg.starred = !msg.starred;
  if (m[3] === "unread") {
    msg.read = false;
    return { redirect: `/mail?folder=${msg.folder}` };
  }
  if (m[3] === "move") {
    const from = msg.folder;
    const to = query.get("to");
    if (to === "inbox" || to === "archive" || to === "trash") msg.folder = to;
    return { redirect: `/mail?folder=${from}` };
  }
  return { redirect: back };
}
