// Annotation page (see page.js): keyboard shortcuts. Ctrl+Enter sends the form; a type's keys
// choose an answer or focus a field, in order behind a submission that waits or is under way.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});

  function isTyping(el) {
    if (!el) return false;
    if (el.tagName === "TEXTAREA" || el.isContentEditable) return true;
    return el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit", "hidden"].includes(el.type);
  }

  function applyShortcut(form, key) {
    const focusTarget = form.querySelector('[data-focus-key="' + CSS.escape(key) + '"]');
    if (focusTarget) {
      focusTarget.focus();
      return;
    }
    const choice = form.querySelector('input[data-shortcut="' + CSS.escape(key) + '"]');
    // A choice the page switched off (an item that can no longer be answered) takes no key.
    if (!choice || choice.matches(":disabled")) return;
    page.metrics.usedKeyboard();
    // A checkbox's key ticks and unticks it; a radio button's key chooses it.
    choice.checked = choice.type === "checkbox" ? !choice.checked : true;
    choice.dispatchEvent(new Event("change", { bubbles: true }));
    const next = choice.dataset.thenFocus && document.getElementById(choice.dataset.thenFocus);
    if (next) next.focus();
  }

  document.addEventListener("keydown", function (event) {
    const form = page.taskForm();
    if (!form) return;
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      // While a submission waits or is under way this is a second press: htmx drops it
      // (hx-sync), so do we.
      if (page.sending.pending()) return;
      const primary = form.querySelector("button.primary");
      // Submit switched off by the page (not by a request under way, which pending() covers).
      if (primary && primary.disabled) return;
      page.metrics.usedKeyboard();
      form.requestSubmit(primary);
      return;
    }
    const active = document.activeElement;
    if (event.key === "Escape" && isTyping(active)) {
      active.blur();
      return;
    }
    if (isTyping(active) || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const known = form.querySelector('[data-focus-key="' + CSS.escape(key) + '"], input[data-shortcut="' + CSS.escape(key) + '"]');
    if (!known) return;
    event.preventDefault();
    // Behind a submission that waits or is under way, keys keep their order.
    if (page.sending.queued()) {
      page.sending.hold(function (f) { applyShortcut(f, key); });
      return;
    }
    applyShortcut(form, key);
  });
})();
