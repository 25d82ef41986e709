// Annotation page (see page.js): checks before sending, with the same rules and messages as the
// server; the reason's length counter; exclusive checkboxes.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});

  function normalisedLength(text) {
    // Code points, as the server counts them (an emoji is one character, not two).
    return Array.from(text.trim().split(/\s+/).filter(Boolean).join(" ")).length;
  }

  function problem(container) {
    // A task type's own script keeps the problem of a "state" container (e.g. audio not heard).
    if (container.dataset.validate === "state") return container.dataset.problem || "";
    if (container.dataset.validate === "choice") {
      return container.querySelector("input:checked") ? "" : container.dataset.messageRequired;
    }
    const area = container.querySelector("[data-count-max]");
    if (!area) return "";
    const n = normalisedLength(area.value);
    if (n < Number(area.dataset.countMin || 0)) return area.dataset.messageShort.replace("{n}", n);
    if (n > Number(area.dataset.countMax)) return area.dataset.messageLong.replace("{n}", n);
    return "";
  }

  function mark(container, message) {
    container.classList.toggle("invalid", Boolean(message));
    const out = container.querySelector("[data-error]");
    if (out) {
      out.textContent = message;
      out.hidden = !message;
    }
    container.querySelectorAll("input, textarea").forEach(function (el) {
      if (message) el.setAttribute("aria-invalid", "true");
      else el.removeAttribute("aria-invalid");
    });
  }

  // The form's alert says "fix the marked fields" unless a failed request took it over.
  function formAlert(form) {
    const alert = form && form.querySelector("[data-form-alert]");
    if (alert && alert.dataset.text === undefined) alert.dataset.text = alert.textContent;
    return alert;
  }

  function refreshAlert(form) {
    const alert = formAlert(form);
    if (!alert) return;
    alert.textContent = alert.dataset.text;
    alert.hidden = !form.querySelector("[data-validate].invalid");
  }

  // Marks every field that fails and returns the first, or null when the form may be sent.
  function validate(form) {
    let first = null;
    form.querySelectorAll("[data-validate]").forEach(function (container) {
      const message = problem(container);
      mark(container, message);
      if (message && first === null) first = container;
    });
    refreshAlert(form);
    updateCounters();
    return first;
  }

  // A missing choice gets the focus on its group, where the shortcut keys still work; a reason
  // that is too short or too long gets the text box.
  function focusProblem(container) {
    const target = container.querySelector("textarea, input");
    if (target) target.focus();
  }

  function updateCounters() {
    document.querySelectorAll("textarea[data-count-max]").forEach(function (area) {
      const out = document.querySelector('[data-counter-for="' + area.id + '"]');
      if (!out) return;
      const n = normalisedLength(area.value);
      out.textContent = String(n);
      const ok = n >= Number(area.dataset.countMin || 0) && n <= Number(area.dataset.countMax);
      // Red while outside the range once typing began, or as long as a check flagged it.
      const flagged = Boolean(area.closest("[data-validate].invalid"));
      out.parentElement.classList.toggle("ok", ok);
      out.parentElement.classList.toggle("bad", !ok && (n > 0 || flagged));
    });
  }

  function recheck(event) {
    const container = event.target.closest && event.target.closest("[data-validate].invalid");
    if (container) {
      mark(container, problem(container));
      refreshAlert(container.closest("form"));
    }
    if (event.target.matches && event.target.matches("textarea[data-count-max]")) updateCounters();
  }
  document.addEventListener("input", recheck);
  document.addEventListener("change", recheck);

  // An exclusive checkbox ("None of these") unticks the others of its group when ticked, and is
  // unticked when any other is (the server refuses both at once).
  document.addEventListener("change", function (event) {
    const box = event.target;
    if (!box.matches || !box.matches('input[type="checkbox"]') || !box.checked) return;
    const form = box.form;
    if (!form) return;
    form.querySelectorAll('input[type="checkbox"][name="' + CSS.escape(box.name) + '"]').forEach(function (other) {
      if (other !== box && (box.hasAttribute("data-exclusive") || other.hasAttribute("data-exclusive"))) {
        other.checked = false;
      }
    });
  }, true);

  page.checks = {
    validate: validate,
    focusProblem: focusProblem,
    updateCounters: updateCounters,
    formAlert: formAlert,
  };
})();
