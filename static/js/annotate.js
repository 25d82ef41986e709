// Annotation page: keyboard shortcuts, checks before sending, the reason counter, the time spent
// on an item, the lease's countdown, the completion code's copy button and the phone header that
// hides on scroll.
// Loaded as a file (no inline script) so that htmx can run with allowEval off.
(function () {
  "use strict";

  function taskForm() {
    return document.getElementById("task-form");
  }

  function isTyping(el) {
    if (!el) return false;
    if (el.tagName === "TEXTAREA" || el.isContentEditable) return true;
    return el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit", "hidden"].includes(el.type);
  }

  // --- time spent: visible time only, per item, kept across a detour to change an answer -------

  const spent = new Map();
  let current = null;
  let shownAt = performance.now();
  let hiddenSince = document.hidden ? shownAt : null;
  let hiddenTotal = 0;
  let input = "";
  let sentKey = null;

  function visibleMs() {
    const now = performance.now();
    const hidden = hiddenTotal + (hiddenSince === null ? 0 : now - hiddenSince);
    return Math.max(0, now - shownAt - hidden);
  }

  function switchTo(key) {
    if (current !== null) spent.set(current, (spent.get(current) || 0) + visibleMs());
    // The item just sent is done: its time was stored, a later visit starts from zero.
    if (sentKey !== null && sentKey !== key) spent.delete(sentKey);
    sentKey = null;
    current = key;
    shownAt = performance.now();
    hiddenTotal = 0;
    hiddenSince = document.hidden ? shownAt : null;
    input = "";
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      hiddenSince = performance.now();
    } else if (hiddenSince !== null) {
      hiddenTotal += performance.now() - hiddenSince;
      hiddenSince = null;
    }
  });

  // --- checks before sending: the same rules and messages as the server ------------------------

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

  // --- htmx readiness: actions wait until htmx has taken the form on screen --------------------
  //
  // htmx swaps a new item in first and processes it (attaches its submit handler) only when the
  // swap settles, a timer later. A form submitted in between would be posted by the browser as a
  // whole page. So submissions wait until htmx has processed the form, and keys pressed while a
  // request is under way wait for the item that answers it.

  const processed = new WeakSet();
  let queue = [];
  let busy = false;
  let submitHeld = false;
  let fallback = null;

  function htmxPresent() {
    return typeof window.htmx !== "undefined";
  }

  function ready(form) {
    return !htmxPresent() || processed.has(form);
  }

  function flush() {
    const form = taskForm();
    if (!form || busy || !ready(form)) return;
    while (queue.length && !busy) {
      const action = queue.shift();
      action(form);
    }
  }

  function hold(action) {
    queue.push(action);
    if (fallback === null) {
      // If the processing event were ever missed, let htmx process the form now (it skips
      // elements it already processed) rather than keep the worker waiting.
      fallback = window.setTimeout(function () {
        fallback = null;
        const form = taskForm();
        if (form && !busy && !processed.has(form) && htmxPresent()) {
          window.htmx.process(form);
          processed.add(form);
        }
        flush();
      }, 3000);
    }
  }

  document.addEventListener("htmx:afterProcessNode", function (event) {
    if (event.target.id === "task-form") {
      processed.add(event.target);
      flush();
    }
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target.closest && event.target.closest("#task-area")) busy = true;
  });

  document.addEventListener("htmx:afterRequest", function () {
    busy = false;
    flush();
  });

  function showFailure(text) {
    let alert = formAlert(taskForm());
    const area = document.getElementById("task-area");
    if (!alert && area) {
      // No form on screen (the completion page, say): the message goes on top of the area.
      alert = area.querySelector("[data-request-failure]") || document.createElement("p");
      alert.className = "notice error";
      alert.setAttribute("role", "alert");
      alert.setAttribute("data-request-failure", "");
      area.prepend(alert);
    }
    if (alert) {
      alert.textContent = text;
      alert.hidden = false;
    }
  }

  // Only a task area may replace the task area: a login page (the session ended) or an error
  // page would otherwise be swapped into the form and the worker's input lost with it.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target.id !== "task-area") return;
    const body = event.detail.serverResponse || "";
    if (event.detail.xhr.status < 400 && body.indexOf('id="task-area"') !== -1) return;
    event.detail.shouldSwap = false;
    event.detail.isError = false;
    const loggedOut = /\/accounts\/login\//.test(event.detail.xhr.responseURL || "");
    showFailure(loggedOut
      ? "You were logged out, so this was not saved. Log in again in another tab, then send it again."
      : "The server could not take this (status " + event.detail.xhr.status + "). Nothing here was lost: " +
        "try again in a moment, or copy your reason and reload the page.");
  });

  document.addEventListener("htmx:sendError", function () {
    showFailure("No connection to the server; nothing was lost here. Please try again.");
  });

  // Runs in the capture phase, before htmx sees the submission.
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (form.id !== "task-form") return;
    const submitter = event.submitter || null;
    const skipping = Boolean(submitter && submitter.formNoValidate);
    if (!skipping) {
      const bad = validate(form);
      if (bad) {
        event.preventDefault();
        event.stopPropagation();
        focusProblem(bad);
        return;
      }
    }
    // Keys pressed from now on are meant for the next item: out of the text box they are
    // shortcuts, held until that item is there, instead of text typed into a form on its way out.
    if (form.contains(document.activeElement)) document.activeElement.blur();
    if (!ready(form)) {
      event.preventDefault();
      event.stopPropagation();
      submitHeld = true;
      hold(function (f) {
        submitHeld = false;
        if (submitter && submitter.isConnected && submitter.hasAttribute("hx-post")) submitter.click();
        else f.requestSubmit(submitter && submitter.isConnected ? submitter : f.querySelector("button.primary"));
      });
      return;
    }
    if (!skipping) sentKey = current;
    form.elements.client_elapsed_ms.value = String(Math.round((spent.get(current) || 0) + visibleMs()));
    form.elements.client_input.value = input || "pointer";
    form.elements.client_viewport.value = window.innerWidth + "x" + window.innerHeight;
  }, true);

  // --- keyboard --------------------------------------------------------------------------------

  function applyShortcut(form, key) {
    const focusTarget = form.querySelector('[data-focus-key="' + CSS.escape(key) + '"]');
    if (focusTarget) {
      focusTarget.focus();
      return;
    }
    const choice = form.querySelector('input[data-shortcut="' + CSS.escape(key) + '"]');
    if (!choice) return;
    input = "keyboard";
    // A checkbox's key ticks and unticks it; a radio button's key chooses it.
    choice.checked = choice.type === "checkbox" ? !choice.checked : true;
    choice.dispatchEvent(new Event("change", { bubbles: true }));
    const next = choice.dataset.thenFocus && document.getElementById(choice.dataset.thenFocus);
    if (next) next.focus();
  }

  document.addEventListener("keydown", function (event) {
    const form = taskForm();
    if (!form) return;
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      // While a submission waits or is under way this is a second press: htmx drops it
      // (hx-sync), so do we.
      if (busy || submitHeld) return;
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
    const known = form.querySelector('[data-focus-key="' + CSS.escape(key) + '"], input[data-shortcut="' + CSS.escape(key) + '"]');
    if (!known) return;
    event.preventDefault();
    // Behind a submission that waits or is under way, keys keep their order.
    if (busy || queue.length) {
      hold(function (f) { applyShortcut(f, key); });
      return;
    }
    applyShortcut(form, key);
  });

  // --- new content -----------------------------------------------------------------------------

  function onContent() {
    const form = taskForm();
    const key = form ? form.dataset.assignment : null;
    if (key !== current) {
      switchTo(key);
      // A new item starts with no focus so that the choice shortcuts work at once (its fields
      // carry the assignment in their ids, so htmx has no old focus to restore).
      if (form && form.contains(document.activeElement)) document.activeElement.blur();
    } else if (form) {
      // The same item again, with the server's objections: go where the worker has to act.
      const bad = form.querySelector("[data-validate].invalid");
      if (bad) focusProblem(bad);
    }
    updateCounters();
    startLease();
  }

  // --- the lease: counted down from the seconds the server gave, whatever the browser's clock --

  let leaseTimer = null;

  function clockText(seconds) {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = String(seconds % 60).padStart(2, "0");
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + s : m + ":" + s;
  }

  function startLease() {
    if (leaseTimer !== null) window.clearInterval(leaseTimer);
    leaseTimer = null;
    const clock = document.querySelector("time[data-lease-seconds]");
    if (!clock) return;
    const lease = clock.closest("[data-testid=lease]");
    const over = lease.querySelector("[data-lease-over]");
    const ends = performance.now() + Number(clock.dataset.leaseSeconds) * 1000;
    function tick() {
      const left = Math.max(0, Math.ceil((ends - performance.now()) / 1000));
      clock.textContent = clockText(left);
      lease.classList.toggle("ending", left > 0 && left <= 120);
      if (left === 0) {
        lease.classList.add("over");
        over.hidden = false;
        window.clearInterval(leaseTimer);
        leaseTimer = null;
      }
    }
    tick();
    leaseTimer = window.setInterval(tick, 1000);
  }

  // A page the browser restores from its back-forward cache shows an item that may be answered
  // or gone: load it again (the server also marks these pages no-store).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && document.getElementById("task-area")) window.location.reload();
  });

  // afterSwap, not afterSettle: keys pressed in between already belong to the new item.
  document.addEventListener("htmx:afterSwap", onContent);
  document.addEventListener("DOMContentLoaded", onContent);

  // --- completion code -------------------------------------------------------------------------

  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-copy]");
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    const status = button.closest("section, div").querySelector("[data-copy-status]");
    const text = source.textContent.trim();
    function report(ok) {
      if (status) status.textContent = ok ? "Copied." : "Select the code and copy it by hand.";
    }
    function byHand() {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      let ok = false;
      try {
        ok = document.execCommand("copy");
      } catch (e) {
        ok = false;
      }
      report(ok);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { report(true); }, byHand);
    } else {
      byHand();
    }
  });

  // --- phone header: out of the way while reading down, back when scrolling up -----------------

  let lastY = window.scrollY;
  window.addEventListener("scroll", function () {
    const y = window.scrollY;
    if (Math.abs(y - lastY) < 8) return;
    document.body.classList.toggle("head-hidden", y > lastY && y > 60);
    lastY = y;
  }, { passive: true });
})();
