/* meldcam: the page's language for the scripts. The page carries its gettext catalog (the "js"
   domain) as JSON in <script id="i18n">: t("text {name}", {name}) and
   tn("{count} piece", "{count} pieces", count) look a text up and fill in its {names}; a text the
   catalog lacks is shown in English. */
"use strict";

const I18n = (() => {
  const node = document.getElementById("i18n");
  const catalog = node ? JSON.parse(node.textContent) : { messages: {}, plural: [], plural_fold: 100, lang: "en" };
  const messages = catalog.messages || {};

  function fill(text, params) {
    if (!params) return text;
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
  }

  /** The plural form for count n: the server's gettext rule, as a table of its first values. */
  function pluralIndex(n) {
    const table = catalog.plural || [];
    const fold = catalog.plural_fold || 100;
    const k = Math.abs(Math.trunc(n));
    const i = k < table.length ? table[k] : table[fold + (k % fold)];
    return i === undefined ? (k === 1 ? 0 : 1) : i;
  }

  function t(text, params) {
    const found = messages[text];
    return fill(typeof found === "string" && found ? found : text, params);
  }

  function tn(singular, plural, count, params) {
    const forms = messages[singular];
    const all = { count, ...(params || {}) };
    if (Array.isArray(forms) && forms.length) {
      const form = forms[Math.min(pluralIndex(count), forms.length - 1)];
      if (form) return fill(form, all);
    }
    return fill(count === 1 ? singular : plural, all);
  }

  /** A list of names joined as the language joins them: "Ann, Bob and Cy". */
  function list(items) {
    if (items.length < 2) return items.join("");
    return t("{first} and {last}", { first: items.slice(0, -1).join(", "), last: items[items.length - 1] });
  }

  // The language switcher opens this page as it is now (its address may have changed since it
  // was served: the check page keeps its game there) and carries what was entered but not yet
  // saved: a page gives it with keepDraft(fn) and gets it back with takeDraft().
  const DRAFT = "meldcam-draft:";
  const keepers = [];
  function keepDraft(fn) { keepers.push(fn); }
  function takeDraft() {
    const key = DRAFT + location.pathname;
    let draft = null;
    try { draft = JSON.parse(sessionStorage.getItem(key) || "null"); } catch (e) { draft = null; }
    sessionStorage.removeItem(key);
    return draft;
  }
  document.addEventListener("click", (event) => {
    const link = event.target.closest("#languages a[data-lang]");
    if (!link) return;
    const url = new URL(location.href);
    url.searchParams.set("lang", link.dataset.lang);
    link.href = url.pathname + url.search + url.hash;
    if (keepers.length) {
      const draft = {};
      for (const fn of keepers) Object.assign(draft, fn());
      try { sessionStorage.setItem(DRAFT + location.pathname, JSON.stringify(draft)); } catch (e) { /* full */ }
    }
  });

  return { t, tn, list, lang: catalog.lang || "en", pluralIndex, keepDraft, takeDraft };
})();
