// The annotation page (templates/annotation/annotate.html) runs on eight scripts, loaded in this
// order and sharing window.annotatePage: page.js (the frame around the task area), metrics.js,
// signals.js, checks.js, sending.js, keys.js, item.js and draft.js. Each is loaded as a file (no inline script) so
// that htmx can run with allowEval off.
//
// This one: the task form's lookup the others share, the completion code's copy button, the
// phone header that hides on scroll, and pages restored from the back-forward cache.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});

  page.taskForm = function () {
    return document.getElementById("task-form");
  };

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

  // A page the browser restores from its back-forward cache shows an item that may be answered
  // or gone: load it again (the server also marks these pages no-store).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && document.getElementById("task-area")) window.location.reload();
  });
})();
