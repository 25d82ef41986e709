// Annotation page (see page.js): a new item on screen. Its time starts, the focus goes where
// the worker has to act, the counters and the lease's countdown start again.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});

  function onContent() {
    const form = page.taskForm();
    const key = form ? form.dataset.assignment : null;
    if (key !== page.metrics.current()) {
      page.metrics.switchTo(key);
      // A new item starts with no focus so that the choice shortcuts work at once (its fields
      // carry the assignment in their ids, so htmx has no old focus to restore).
      if (form && form.contains(document.activeElement)) document.activeElement.blur();
    } else if (form) {
      // The same item again, with the server's objections: go where the worker has to act.
      const bad = form.querySelector("[data-validate].invalid");
      if (bad) page.checks.focusProblem(bad);
    }
    page.checks.updateCounters();
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

  // afterSwap, not afterSettle: keys pressed in between already belong to the new item.
  document.addEventListener("htmx:afterSwap", onContent);
  document.addEventListener("DOMContentLoaded", onContent);
})();
