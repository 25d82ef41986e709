// Annotation page: keyboard shortcuts, the reason counter and the time spent on an item.
// Loaded as a file (no inline script) so that htmx can run with allowEval off.
(function () {
  "use strict";

  let shownAt = performance.now();
  let hiddenSince = document.hidden ? shownAt : null;
  let hiddenTotal = 0;
  let input = "";

  function taskForm() {
    return document.getElementById("task-form");
  }

  function isTyping(el) {
    if (!el) return false;
    if (el.tagName === "TEXTAREA" || el.isContentEditable) return true;
    return el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit", "hidden"].includes(el.type);
  }

  function normalisedLength(text) {
    return text.trim().split(/\s+/).filter(Boolean).join(" ").length;
  }

  function updateCounters() {
    document.querySelectorAll("textarea[data-count-max]").forEach(function (area) {
      const out = document.querySelector('[data-counter-for="' + area.id + '"]');
      if (!out) return;
      const n = normalisedLength(area.value);
      out.textContent = String(n);
      const ok = n >= Number(area.dataset.countMin || 0) && n <= Number(area.dataset.countMax);
      out.parentElement.classList.toggle("ok", ok);
      out.parentElement.classList.toggle("bad", n > 0 && !ok);
    });
  }

  function reset() {
    shownAt = performance.now();
    hiddenTotal = 0;
    hiddenSince = document.hidden ? shownAt : null;
    input = "";
    updateCounters();
  }

  function visibleMs() {
    const now = performance.now();
    const hidden = hiddenTotal + (hiddenSince === null ? 0 : now - hiddenSince);
    return Math.max(0, Math.round(now - shownAt - hidden));
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      hiddenSince = performance.now();
    } else if (hiddenSince !== null) {
      hiddenTotal += performance.now() - hiddenSince;
      hiddenSince = null;
    }
  });

  // Runs in the capture phase, before htmx reads the form's values.
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (form.id !== "task-form") return;
    form.elements.client_elapsed_ms.value = String(visibleMs());
    form.elements.client_input.value = input || "pointer";
    form.elements.client_viewport.value = window.innerWidth + "x" + window.innerHeight;
  }, true);

  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("textarea[data-count-max]")) updateCounters();
  });

  document.addEventListener("keydown", function (event) {
    const form = taskForm();
    if (!form) return;
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      input = input || "keyboard";
      form.requestSubmit(form.querySelector("button.primary"));
      return;
    }
    const active = document.activeElement;
    if (event.key === "Escape" && isTyping(active)) {
      active.blur();
      return;
    }
    if (isTyping(active) || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const focusTarget = form.querySelector('[data-focus-key="' + CSS.escape(key) + '"]');
    if (focusTarget) {
      event.preventDefault();
      focusTarget.focus();
      return;
    }
    const choice = form.querySelector('input[data-shortcut="' + CSS.escape(key) + '"]');
    if (!choice) return;
    event.preventDefault();
    input = "keyboard";
    choice.checked = true;
    choice.dispatchEvent(new Event("change", { bubbles: true }));
    const next = choice.dataset.thenFocus && document.getElementById(choice.dataset.thenFocus);
    if (next) next.focus();
  });

  let current = null;

  // A new item restarts the clock; the same item re-shown with errors keeps it running.
  function onContent() {
    const form = taskForm();
    const id = form ? form.dataset.assignment : null;
    if (id !== current) {
      current = id;
      reset();
      // A new item starts with no focus so that the choice shortcuts work at once (its fields
      // carry the assignment in their ids, so htmx has no old focus to restore).
      if (form && form.contains(document.activeElement)) document.activeElement.blur();
    } else {
      updateCounters();
    }
  }

  // afterSwap, not afterSettle: keys pressed in between already belong to the new item.
  document.addEventListener("htmx:afterSwap", onContent);
  document.addEventListener("DOMContentLoaded", onContent);
})();
