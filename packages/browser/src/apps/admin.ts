/** The admin app: a site settings form and a user list (roles, activation, adding users). */
import { ADMIN } from "./layout.ts";
import type { AppReply, AppRequest } from "./route.ts";
import type { AdminSettings, AppsState } from "./state.ts";
import { button, choice, page, postButton, text, textField } from "./ui.ts";

const NAV: Array<[string, string]> = [
  ["/admin", "Settings"],
  ["/admin/users", "Users"],
];
const TIMEZONES = ["UTC", "Europe/Lisbon", "America/New_York"] as const;

/** The theme toggle: a client-side preference kept in localStorage. */
const THEME_SCRIPT = `const t=()=>document.body.classList.toggle('dark',localStorage.getItem('admin.theme')==='dark');t();document.getElementById('theme').addEventListener('click',()=>{localStorage.setItem('admin.theme',localStorage.getItem('admin.theme')==='dark'?'light':'dark');t();});`;
const themeButton = () =>
  `<button id="theme" type="button" style="position:absolute;left:${ADMIN.theme[0]}px;top:${ADMIN.theme[1]}px;width:${ADMIN.theme[2]}px;height:${ADMIN.theme[3]}px">Toggle theme</button>`;

function settingsPage(s: AdminSettings, saved: boolean): string {
  const tz = TIMEZONES.map((z) => choice("radio", "timezone", z, z, ADMIN.tz[z], s.timezone === z)).join("");
  const form = `<form method="post" action="/admin/settings" style="margin:0">${textField("siteName", "Site name", ADMIN.siteName, s.siteName)}${textField("supportEmail", "Support email", ADMIN.supportEmail, s.supportEmail)}${text("Timezone", [220, 175, 160, 24])}${tz}${text("Maintenance mode", [210, 223, 170, 24])}${choice("checkbox", "maintenance", "on", "Site is down for maintenance", ADMIN.maintenance, s.maintenance)}${text("Signups", [210, 263, 170, 24])}${choice("checkbox", "signups", "on", "Allow new signups", ADMIN.signups, s.signups)}${textField("maxUploadMb", "Max upload (MB)", ADMIN.maxUpload, String(s.maxUploadMb), "number")}${button("Save", ADMIN.save, { primary: true })}</form>`;
  return page(
    "Admin",
    NAV,
    `${themeButton()}${saved ? text("Settings saved", [540, 370, 300, 30], { role: "status" }) : ""}${form}`,
    THEME_SCRIPT,
  );
}

function usersPage(state: AppsState): string {
  const rows = state.admin.users
    .map((u, i) => {
      const roles = (["viewer", "editor", "admin"] as const)
        .map((r) => postButton(`/admin/users/${u.id}/role?role=${r}`, u.role === r ? `[${r}]` : r, ADMIN.role[r](i)))
        .join("");
      return `${text(`${u.name}${u.active ? "" : " (inactive)"}`, [40, 70 + i * 50, 200, 36])}${text(u.email, [250, 70 + i * 50, 220, 36])}${roles}${postButton(`/admin/users/${u.id}/active`, u.active ? "Deactivate" : "Activate", ADMIN.active(i))}`;
    })
    .join("");
  const add = `<form method="post" action="/admin/users/add" style="margin:0">${textField("name", "New user name", ADMIN.newName)}${textField("email", "New user email", ADMIN.newEmail)}${button("Add user", ADMIN.add, { primary: true })}</form>`;
  return page("Admin", NAV, `${themeButton()}${rows}${add}`, THEME_SCRIPT);
}

/** Handle an /admin request. */
export function adminRoute(req: AppRequest, state: AppsState): AppReply {
  const { method, path, query, form } = req;
  const a = state.admin;
  if (method === "GET" && path === "/admin") return { html: settingsPage(a.settings, query.get("saved") === "1") };
  if (method === "GET" && path === "/admin/users") return { html: usersPage(state) };
  if (method === "POST" && path === "/admin/settings") {
    const tz = form.get("timezone");
    const mb = Number(form.get("maxUploadMb"));
    a.settings = {
      siteName: (form.get("siteName") ?? "").trim(),
      supportEmail: (form.get("supportEmail") ?? "").trim(),
      timezone: (TIMEZONES as readonly string[]).includes(tz ?? "")
        ? (tz as AdminSettings["timezone"])
        : a.settings.timezone,
      maintenance: form.get("maintenance") === "on",
      signups: form.get("signups") === "on",
      maxUploadMb: Number.isInteger(mb) && mb > 0 ? mb : a.settings.maxUploadMb,
    };
    a.saves += 1;
    return { redirect: "/admin?saved=1" };
  }
  if (method === "POST" && path === "/admin/users/add") {
    const name = (form.get("name") ?? "").trim();
    const email = (form.get("email") ?? "").trim();
    if (name && email)
      a.users.push({ id: Math.max(0, ...a.users.map((u) => u.id)) + 1, name, email, role: "viewer", active: true });
    return { redirect: "/admin/users" };
  }
  const m = /^\/admin\/users\/(\d+)\/(role|active)$/.exec(path);
  const user = m ? a.users.find((u) => u.id === Number(m[1])) : undefined;
  if (method === "POST" && m && user) {
    const role = query.get("role");
    if (m[2] === "role" && (role === "viewer" || role === "editor" || role === "admin")) user.role = role;
    if (m[2] === "active") user.active = !user.active;
    return { redirect: "/admin/users" };
  }
  return { status: 404, html: page("Admin", NAV, text("Not found", [220, 70, 300, 30])) };
}
