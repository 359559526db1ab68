// Settings: mail (all games, per kind), daily digest, time zone, moves by mail, webhooks.
import { call, get, post } from "./api.js";
import { consent } from "./keys.js";
import { h } from "./dom.js";

const me = (account) => `/v1/players/${account.id}`;

/** The settings form; `say` reports what was saved. */
export async function settingsView(account, say) {
  const [profile, mail, hooks] = await Promise.all([
    get(account, me(account)), get(account, `${me(account)}/mail`),
    get(account, `${me(account)}/webhooks`)]);
  const enabled = h("input", { id: "mail-enabled", type: "checkbox", checked: mail.enabled });
  const kinds = Object.entries(mail.types).map(([kind, on]) => {
    const box = h("input", { id: `mail-${kind}`, type: "checkbox", checked: on, "data-kind": kind });
    return h("div", { class: "check" }, box, h("label", { for: `mail-${kind}` }, kind.replaceAll("_", " ")));
  });
  // the API answers these settings only when one is changed: the fields start as "unchanged"
  const unchanged = (...values) => values.map(([v, text]) => h("option", { value: v }, text));
  const zone = h("input", { id: "time-zone", autocomplete: "off",
    placeholder: `unchanged (here: ${Intl.DateTimeFormat().resolvedOptions().timeZone})` });
  const moves = h("select", { id: "mail-moves" },
    unchanged(["", "unchanged"], ["true", "yes"], ["false", "no"]));
  const digest = h("select", { id: "mail-digest" },
    unchanged(["", "unchanged"], ["off", "off"], ["daily", "daily"]));
  const hour = h("input", { id: "digest-hour", type: "number", min: 0, max: 23,
                            placeholder: "unchanged" });
  const answered = h("p", { id: "prefs" });
  const form = h("form", { onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const types = Object.fromEntries([...form.querySelectorAll("[data-kind]")]
        .map((b) => [b.dataset.kind, b.checked]));
      await call(account, "PUT", `${me(account)}/mail`, { enabled: enabled.checked, types });
      const change = {};
      if (zone.value.trim()) change.time_zone = zone.value.trim();
      if (moves.value) {
        // moves by mail rest on the player's signed statement (docs/audit.md §16)
        await post(account, `${me(account)}/consents`, await consent(account, moves.value === "true"));
        if (moves.value === "true") change.mail_moves = true;
      }
      if (digest.value) change.mail_digest = digest.value;
      if (hour.value !== "") change.digest_hour = Number(hour.value);
      if (Object.keys(change).length) {
        const now = (await call(account, "PATCH", me(account), change)).data;
        answered.textContent = `Time zone ${now.time_zone}; moves by mail ${now.mail_moves ? "on" : "off"}; `
          + `digest ${now.mail_digest} at ${now.digest_hour}:00.`;
      }
      say("Settings saved.");
    } catch (err) { say(`Refused: ${err.message}`); }
  } },
  h("p", {}, profile.email ? `Mail goes to ${profile.email}`
    + (profile.email_confirmed ? "." : " once you follow the link of its confirmation mail.")
    : "No mail address: turn mails are off."),
  h("div", { class: "check" }, enabled, h("label", { for: "mail-enabled" }, "Mail for my games")),
  h("fieldset", {}, h("legend", {}, "Mail me about"), kinds),
  h("label", { for: "mail-moves" }, "Replies to turn mails make moves"), moves,
  h("label", { for: "mail-digest" }, "Digest (one mail a day instead of one per turn)"), digest,
  h("label", { for: "digest-hour" }, "Digest hour"), hour,
  h("label", { for: "time-zone" }, "Time zone (IANA name, for deadlines in mails)"), zone,
  h("button", { type: "submit" }, "Save settings"), answered);
  const list = h("ul", { id: "webhooks" }, hooks.webhooks.map((w) => h("li", {},
    `${w.url} - ${w.types.join(", ")} - ${w.enabled ? "on" : `off (${w.disabled_reason || "disabled"})`}`)));
  return [form, h("h2", {}, "Webhooks"), list,
    hooks.webhooks.length ? null : h("p", {}, "No webhook (add one through the API: POST "
      + `/v1/players/${account.id}/webhooks).`)];
}
