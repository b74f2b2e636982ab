/// The transaction manager's stylesheet and script, compiled into the binary for the same reason as its templates
/// (see `ManagerTemplates`): no files beside the executable, no build step, nothing fetched from elsewhere.
enum ManagerAssets {
    /// A file the page loads.
    struct Asset {
        let contentType: String
        let text: String
    }

    /// The asset served as `manage/assets/{name}`, if there is one.
    static func named(_ name: String) -> Asset? {
        switch name {
        case "manager.css": Asset(contentType: "text/css; charset=utf-8", text: stylesheet)
        case "manager.js": Asset(contentType: "text/javascript; charset=utf-8", text: script)
        default: nil
        }
    }

    private static let stylesheet = """
    :root {
      --bg: #f6f7f9; --panel: #ffffff; --text: #1d232b; --muted: #5d6875; --line: #d9dee5; --accent: #0a66d8;
      --accent-text: #ffffff; --good: #1d7a3a; --good-bg: #e3f4e8; --wait: #8a5a00; --wait-bg: #fdf1d7;
      --bad: #b3261e; --bad-bg: #fbe5e3; --code: #eef1f5; --focus: #f0a000;
      color-scheme: light;
    }
    :root[data-theme="dark"] {
      --bg: #12161b; --panel: #1b2128; --text: #e6e9ed; --muted: #9aa5b1; --line: #303944; --accent: #5ea2ff;
      --accent-text: #0b1420; --good: #7ed69a; --good-bg: #173524; --wait: #f1c46b; --wait-bg: #3a2e12;
      --bad: #ff8f86; --bad-bg: #41201d; --code: #232b34; --focus: #ffc440;
      color-scheme: dark;
    }
    @media (prefers-color-scheme: dark) {
      :root:not([data-theme="light"]) {
        --bg: #12161b; --panel: #1b2128; --text: #e6e9ed; --muted: #9aa5b1; --line: #303944; --accent: #5ea2ff;
        --accent-text: #0b1420; --good: #7ed69a; --good-bg: #173524; --wait: #f1c46b; --wait-bg: #3a2e12;
        --bad: #ff8f86; --bad-bg: #41201d; --code: #232b34; --focus: #ffc440;
        color-scheme: dark;
      }
    }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
    a { color: var(--accent); }
    .skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--panel); padding: 6px; z-index: 2; }
    :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
    .top { display: flex; flex-wrap: wrap; gap: 12px 20px; align-items: center; padding: 12px 20px; background: var(--panel); border-bottom: 1px solid var(--line); }
    .top h1 { font-size: 18px; margin: 0; } .top h1 span { font-weight: 400; color: var(--muted); }
    .top nav { flex: 1; }
    .live { font-size: 13px; color: var(--muted); } .live.on::before { content: "● "; color: var(--good); }
    .layout { display: grid; grid-template-columns: minmax(260px, 330px) 1fr; gap: 16px; padding: 16px 20px; align-items: start; }
    .layout > div { min-width: 0; }
    @media (max-width: 900px) { .layout { grid-template-columns: 1fr; padding: 10px; } .layout > .main { order: -1; } }
    section { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; margin-bottom: 16px; min-width: 0; }
    h2 { font-size: 16px; margin: 0 0 10px; } h3 { font-size: 14px; margin: 0 0 6px; } h4 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); }
    .count { color: var(--muted); font-weight: 400; }
    .section-head { display: flex; justify-content: space-between; align-items: center; gap: 10px; flex-wrap: wrap; }
    .now { font-size: 15px; font-weight: 600; margin: 0 0 10px; }
    form.stack { display: grid; gap: 8px; margin-bottom: 14px; }
    form.inline { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
    .filters { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 6px 0 12px; }
    label { display: grid; gap: 3px; font-size: 13px; color: var(--muted); }
    .filters label:has(input[type="url"]) { flex: 1 1 30ch; }
    label.check { display: flex; gap: 8px; align-items: center; color: var(--text); font-size: 14px; }
    label.compact { display: inline-flex; gap: 4px; align-items: center; }
    fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; margin: 0; display: grid; gap: 4px; }
    legend { font-size: 13px; color: var(--muted); }
    input, select, button { font: inherit; color: var(--text); }
    input, select { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 5px 7px; min-width: 0; }
    button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 5px 10px; cursor: pointer; }
    button:hover { border-color: var(--accent); }
    button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
    button.danger { color: var(--bad); } button.quiet { border-color: transparent; background: transparent; }
    button[disabled] { opacity: .6; cursor: progress; }
    .buttons { display: flex; flex-wrap: wrap; gap: 6px; }
    .message { margin: 0; font-size: 13px; color: var(--good); } .message:empty { display: none; }
    .message.error { color: var(--bad); font-weight: 600; }
    .fired { margin: 0; padding-left: 18px; font-size: 13px; } .fired:empty { display: none; }
    .table-wrap { overflow-x: auto; }
    table { width: 100%; border-collapse: collapse; font-size: 14px; margin-bottom: 12px; }
    caption { text-align: left; font-weight: 600; padding: 4px 0; }
    th { text-align: left; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); border-bottom: 1px solid var(--line); padding: 6px; }
    td { border-bottom: 1px solid var(--line); padding: 7px 6px; vertical-align: top; }
    td small { display: block; color: var(--muted); font-size: 12px; }
    tr.row.fresh td { animation: fresh 2s ease-out; }
    @keyframes fresh { from { background: var(--wait-bg); } to { background: transparent; } }
    tr.detail td { background: var(--bg); }
    button.expand { font-family: ui-monospace, monospace; padding: 2px 6px; white-space: nowrap; }
    td time { white-space: nowrap; }
    button.expand::before { content: "▸ "; } button.expand[aria-expanded="true"]::before { content: "▾ "; }
    .badge { display: inline-block; white-space: nowrap; border-radius: 999px; padding: 1px 8px; font-size: 12px; font-weight: 600; background: var(--code); }
    .badge.good { color: var(--good); background: var(--good-bg); } .badge.wait { color: var(--wait); background: var(--wait-bg); }
    .badge.bad { color: var(--bad); background: var(--bad-bg); } .badge.muted { color: var(--muted); }
    .detail-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
    .panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px; min-width: 0; }
    pre { background: var(--code); border-radius: 6px; padding: 8px; overflow: auto; max-height: 320px; font-size: 12px; margin: 0; }
    .empty { color: var(--muted); }
    .attempts { margin: 0; padding-left: 18px; font-size: 13px; }
    footer { padding: 0 20px 20px; color: var(--muted); font-size: 12px; }
    code { background: var(--code); padding: 0 4px; border-radius: 4px; }
    """

    private static let script = #"""
    // The transaction manager's behaviour: send forms to the control API, show what the store answered where the
    // action was taken, and re-render sections when the store says they changed. Everything else is server HTML.
    "use strict";
    const base = document.body.dataset.base;
    const sectionsFor = {
      transactions: ["transactions", "catalog", "buy"], subscriptions: ["transactions"], notifications: ["notifications"],
      clock: ["clock", "transactions"], settings: ["settings", "clock"], accounts: ["catalog", "buy"], intents: []
    };

    // Theme: automatic (the system's), light or dark; remembered, and ?theme=dark|light picks one for a visit.
    const themes = ["auto", "light", "dark"];
    function applyTheme(theme) {
      if (theme === "auto") delete document.documentElement.dataset.theme; else document.documentElement.dataset.theme = theme;
      const toggle = document.getElementById("theme-toggle");
      toggle.textContent = "Theme: " + theme;
      toggle.setAttribute("aria-label", "Colour theme: " + theme + ". Activate to change.");
    }
    const requested = new URLSearchParams(location.search).get("theme");
    applyTheme(themes.includes(requested) ? requested : (localStorage.getItem("theme") || "auto"));
    document.getElementById("theme-toggle").addEventListener("click", () => {
      const next = themes[(themes.indexOf(document.documentElement.dataset.theme || "auto") + 1) % themes.length];
      localStorage.setItem("theme", next);
      applyTheme(next);
    });
    const picker = document.getElementById("tenant-picker");
    if (picker) picker.addEventListener("change", () => { location.href = picker.value; });

    function filterQuery() {
      const form = document.getElementById("transaction-filters");
      if (!form) return "";
      const query = new URLSearchParams();
      for (const [key, value] of new FormData(form)) if (value) query.set(key, value);
      const text = query.toString();
      return text ? "?" + text : "";
    }

    // Re-rendering: a section whose form is being edited waits until the focus leaves it.
    const pending = new Set();
    let timer = null;
    function schedule(names) {
      names.forEach(name => pending.add(name));
      clearTimeout(timer);
      timer = setTimeout(flush, 120);
    }
    async function flush() {
      for (const name of [...pending]) {
        const section = document.getElementById(name);
        const editing = section && section.contains(document.activeElement) && document.activeElement.matches("input, select");
        if (editing) continue;
        pending.delete(name);
        // A section the server could not render now is tried again shortly, so no change is lost.
        if (!(await render(name).catch(() => false))) { pending.add(name); clearTimeout(timer); timer = setTimeout(flush, 1000); }
      }
    }
    document.addEventListener("focusout", () => { if (pending.size) schedule([]); });

    // Renders a section again; false when the server did not answer with it.
    async function render(name) {
      const section = document.getElementById(name);
      if (!section) return true;
      const response = await fetch(base + "manage/sections/" + name + (name === "transactions" ? filterQuery() : ""));
      if (!response.ok) return false;
      const before = new Set([...section.querySelectorAll("tr[data-transaction]")].map(row => row.dataset.transaction));
      const open = [...section.querySelectorAll("button.expand[aria-expanded=true]")].map(button => button.getAttribute("aria-controls"));
      // What the store answered stays beside the form it answered, across the re-render.
      const answers = [...section.querySelectorAll("form[aria-label]")].map(form => [
        form.getAttribute("aria-label"), form.querySelector("[data-message]"), form.querySelector("[data-fired]")
      ]);
      section.innerHTML = await response.text();
      for (const [label, message, fired] of answers) {
        const form = [...section.querySelectorAll("form[aria-label]")].find(candidate => candidate.getAttribute("aria-label") === label);
        if (!form) continue;
        if (message && message.textContent) form.querySelector("[data-message]")?.replaceWith(message);
        if (fired && fired.children.length) form.querySelector("[data-fired]")?.replaceWith(fired);
      }
      if (before.size || name === "transactions") {
        section.querySelectorAll("tr[data-transaction]").forEach(row => { if (!before.has(row.dataset.transaction)) row.classList.add("fresh"); });
      }
      for (const id of open) {
        const button = section.querySelector(`button.expand[aria-controls="${id}"]`);
        if (button) await expand(button, true);
      }
      return true;
    }

    async function expand(button, opened) {
      const row = document.getElementById(button.getAttribute("aria-controls"));
      button.setAttribute("aria-expanded", String(opened));
      row.hidden = !opened;
      if (!opened) return;
      const body = row.querySelector("[data-detail-body]");
      const response = await fetch(base + button.dataset.detail);
      body.innerHTML = await response.text();
    }
    document.addEventListener("click", event => {
      const button = event.target.closest("button.expand");
      if (button) expand(button, button.getAttribute("aria-expanded") !== "true");
    });
    document.addEventListener("change", event => {
      // A filter applies at once, though its select has the focus; the list is tried again if it could not load.
      if (event.target.closest("#transaction-filters")) render("transactions").catch(() => false).then(ok => ok || schedule(["transactions"]));
    });

    // Forms: each names the control operation it sends (the submit button may name its own, and a body); the
    // operations' methods and paths are the control API document's, which the page carries.
    const operations = JSON.parse(document.getElementById("control-operations").textContent);
    function bodyOf(form, submitter) {
      const body = {};
      for (const field of form.querySelectorAll("input[name], select[name]")) {
        if (field.type === "checkbox") { body[field.name] = field.checked; continue; }
        let value = field.value;
        if (value === "" && field.hasAttribute("data-omit-empty")) continue;
        if (field.dataset.type === "int") value = value === "" ? 0 : Number(value);
        else if (field.dataset.type === "utc-date") {
          if (!submitter || submitter.name !== "advance-to") continue;
          value = value.length === 16 ? value + ":00Z" : value + "Z";
        } else if (value === "" && field.hasAttribute("data-null-if-empty")) value = null;
        body[field.name] = value;
      }
      if (submitter && submitter.dataset.body) Object.assign(body, JSON.parse(submitter.dataset.body));
      return body;
    }
    function say(form, text, isError) {
      const message = form.querySelector("[data-message]");
      if (!message) return;
      message.textContent = text;
      message.classList.toggle("error", isError);
      message.setAttribute("role", isError ? "alert" : "status");
    }
    function describe(answer) {
      if (answer && answer.transactionId) return "Transaction " + answer.transactionId + ": " + answer.state + ".";
      if (answer && answer.notificationUUID) return "Notification " + answer.notificationType + ": " + answer.delivery + ".";
      if (answer && answer.now) return "Clock at " + answer.now + ".";
      if (answer && answer.shared) return "Shared " + answer.shared.length + " purchases with the family.";
      if (answer && answer.revoked) return "Revoked " + answer.revoked.length + " shared purchases.";
      return "Done.";
    }
    document.addEventListener("submit", async event => {
      const form = event.target;
      const submitter = event.submitter;
      const operation = operations[(submitter && submitter.dataset.operation) || form.dataset.operation];
      if (!operation) { event.preventDefault(); return; }
      event.preventDefault();
      // The operation's path names its parameters ("control/families/{family}/members"): each is the submit button's
      // or the form's data attribute of that name, else the form's field. A server-wide form's path is the server's.
      let missing = null;
      const path = operation.path.replace(/\{(\w+)\}/g, (_, name) => {
        const given = (submitter && submitter.dataset[name]) || form.dataset[name];
        const value = given || (form.elements[name] ? form.elements[name].value.trim() : "");
        if (!value) missing = missing || name;
        return encodeURIComponent(value);
      });
      if (missing) { say(form, "Fill in " + missing + " first.", true); return; }
      const url = (form.hasAttribute("data-server-wide") ? "/" : base) + path;
      const method = operation.method;
      const confirmation = (submitter && submitter.dataset.confirm) || form.dataset.confirm;
      if (confirmation && !confirm(confirmation)) return;
      // The form is sent: whatever field still has the focus (a click does not move it in every browser) is no
      // longer being edited, so the live updates that wait for editing to end may go ahead.
      if (form.contains(document.activeElement) && document.activeElement.matches("input, select")) document.activeElement.blur();
      const options = { method, headers: { "content-type": "application/json" } };
      if (method !== "GET" && method !== "DELETE") options.body = JSON.stringify(bodyOf(form, submitter));
      if (submitter) submitter.disabled = true;
      try {
        const response = await fetch(url, options);
        const answer = await response.json().catch(() => ({}));
        if (!response.ok) { say(form, answer.error || ("The store answered " + response.status + "."), true); return; }
        // A reset store is a new store: start over with it.
        if (form.hasAttribute("data-reload")) { location.reload(); return; }
        say(form, describe(answer), false);
        // A change the store announces no event for (a family membership) names the sections it changes.
        if (form.dataset.refresh) schedule(form.dataset.refresh.split(" "));
        const fired = form.querySelector("[data-fired]");
        if (fired) {
          fired.innerHTML = "";
          for (const entry of answer.fired || []) {
            const item = document.createElement("li");
            item.textContent = entry.date + " " + (entry.subtype ? entry.notificationType + "/" + entry.subtype : entry.notificationType) + " · transaction " + entry.transactionId;
            fired.append(item);
          }
          if (answer.fired && !answer.fired.length) say(form, describe(answer) + " Nothing was due on the way.", false);
        }
      } catch (error) {
        say(form, "The server could not be reached: " + error.message, true);
      } finally {
        if (submitter && submitter.isConnected) submitter.disabled = false;
      }
    });

    // Live updates.
    const live = document.getElementById("live");
    const events = new EventSource(base + "control/events");
    let connectedBefore = false;
    events.onopen = () => {
      live.textContent = "live";
      live.classList.add("on");
      // After a dropped connection, what changed meanwhile was never announced here: show the store as it is now.
      if (connectedBefore) schedule([...document.querySelectorAll("section[data-section]")].map(section => section.id));
      connectedBefore = true;
    };
    events.onerror = () => { live.textContent = "reconnecting…"; live.classList.remove("on"); };
    for (const [name, sections] of Object.entries(sectionsFor)) {
      events.addEventListener(name, () => schedule(sections));
    }
    """#
}
