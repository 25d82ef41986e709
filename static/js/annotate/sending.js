// Annotation page (see page.js): sending the form. The checks run first; the submission waits
// until htmx has taken the form on screen; a failed request says what happened instead of
// replacing the form.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});
  const taskForm = page.taskForm;

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
    let alert = page.checks.formAlert(taskForm());
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
      const bad = page.checks.validate(form);
      if (bad) {
        event.preventDefault();
        event.stopPropagation();
        page.checks.focusProblem(bad);
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
    if (!skipping) page.metrics.markSent();
    page.metrics.fill(form);
  }, true);

  page.sending = {
    hold: hold,
    // A submission waits for htmx or is under way.
    pending: function () {
      return busy || submitHeld;
    },
    // A submission is under way, or actions wait for htmx.
    queued: function () {
      return busy || queue.length > 0;
    },
  };
})();
