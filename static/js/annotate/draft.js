// Annotation page (see page.js): an unsent answer survives a reload. What the worker chose and
// typed is kept in this browser (localStorage) under the assignment's id, as the form's field
// names with their values (not positions: the options may be shown in another order), put back
// when the page shows that assignment again, and dropped once the item was
// answered or skipped. Another assignment never gets it; changing an earlier answer is not kept.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});
  const PREFIX = "draft:";
  // Drafts of items left behind (another tab, a lease that ran out) are dropped after this long.
  const MAX_AGE_MS = 2 * 24 * 3600 * 1000;

  let shown = null; // the storage key of the item on screen
  let leaving = null; // the key of the item being sent or skipped

  function keyOf(form) {
    const id = form ? form.dataset.assignment : "";
    return id && /^\d+$/.test(id) ? PREFIX + id : null;
  }

  function answerFields(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && !el.matches(":disabled") && el.name !== "csrfmiddlewaretoken" &&
        !["hidden", "submit", "button", "reset", "file"].includes(el.type);
    });
  }

  // Field name → values, as the browser would send them.
  function valuesOf(form) {
    const values = {};
    let any = false;
    answerFields(form).forEach(function (el) {
      const list = values[el.name] || (values[el.name] = []);
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked) list.push(el.value);
      } else if (el.tagName === "SELECT" && el.multiple) {
        Array.prototype.forEach.call(el.selectedOptions, function (o) { list.push(o.value); });
      } else {
        list.push(el.value);
      }
      if (list.some(function (v) { return v !== ""; })) any = true;
    });
    return any ? values : null;
  }

  function read(key) {
    try {
      const draft = JSON.parse(localStorage.getItem(key) || "null");
      return draft && draft.values && typeof draft.values === "object" ? draft : null;
    } catch (e) {
      return null;
    }
  }

  function forget(key) {
    try { localStorage.removeItem(key); } catch (e) { /* storage off */ }
  }

  function save() {
    const form = page.taskForm();
    const key = keyOf(form);
    if (!key || key !== shown) return;
    const values = valuesOf(form);
    try {
      if (values) localStorage.setItem(key, JSON.stringify({ at: Date.now(), values: values }));
      else localStorage.removeItem(key);
    } catch (e) { /* storage full or off: the answer is only not kept across a reload */ }
  }

  // Puts the values back by field name and value; a value the form no longer offers is left out.
  function restore(form, values) {
    let restored = false;
    const seen = {};
    answerFields(form).forEach(function (el) {
      const list = values[el.name];
      if (!Array.isArray(list)) return;
      if (el.type === "radio" || el.type === "checkbox") {
        el.checked = list.includes(el.value);
        restored = restored || el.checked;
      } else if (el.tagName === "SELECT" && el.multiple) {
        Array.prototype.forEach.call(el.options, function (o) { o.selected = list.includes(o.value); });
        restored = restored || el.selectedOptions.length > 0;
      } else {
        const i = (seen[el.name] = el.name in seen ? seen[el.name] + 1 : 0);
        if (i < list.length && typeof list[i] === "string") {
          el.value = list[i];
          restored = restored || list[i] !== "";
        }
      }
    });
    return restored;
  }

  function tell(form) {
    const note = document.createElement("p");
    note.className = "notice info";
    note.setAttribute("role", "status");
    note.setAttribute("data-testid", "draft-restored");
    note.textContent = "Your unsent answer to this item was put back (this browser kept it).";
    form.prepend(note);
  }

  function pruneOld() {
    try {
      for (let i = localStorage.length - 1; i >= 0; i--) {
        const name = localStorage.key(i);
        if (!name || name.indexOf(PREFIX) !== 0) continue;
        const draft = read(name);
        if (!draft || !(Date.now() - (draft.at || 0) < MAX_AGE_MS)) localStorage.removeItem(name);
      }
    } catch (e) { /* storage off */ }
  }

  function onContent() {
    const form = page.taskForm();
    const key = keyOf(form);
    // The item sent or skipped is no longer on screen: it was taken, its draft is done with.
    if (leaving !== null && leaving !== key) forget(leaving);
    leaving = null;
    if (key === shown) return;
    shown = key;
    if (!key) return;
    const draft = read(key);
    // The draft was taken from this same form, values the server put in (a standpoint kept from
    // an earlier item) included, so it replaces them.
    if (!draft) return;
    if (restore(form, draft.values)) {
      tell(form);
      if (page.checks) page.checks.updateCounters();
    }
  }

  document.addEventListener("input", function (event) {
    if (event.target.form && event.target.form.id === "task-form") save();
  });
  document.addEventListener("change", function (event) {
    if (event.target.form && event.target.form.id === "task-form") save();
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    const form = page.taskForm();
    const path = (event.detail.requestConfig && event.detail.requestConfig.path) || "";
    if (form && form.contains(event.detail.elt) && /\/(submit|skip)\/$/.test(path)) leaving = keyOf(form);
  });
  document.addEventListener("htmx:afterSwap", onContent);
  document.addEventListener("DOMContentLoaded", function () {
    pruneOld();
    onContent();
  });
})();
