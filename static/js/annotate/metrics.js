// Annotation page (see page.js): what the form reports with an answer about how it was given:
// the time spent on the item (visible time only, per item, kept across a detour to change an
// answer), whether keys gave it, and the viewport.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});

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

  page.metrics = {
    // The item on screen: its form's data-assignment, null when there is none.
    current: function () {
      return current;
    },
    switchTo: switchTo,
    usedKeyboard: function () {
      input = "keyboard";
    },
    // The item on screen is being answered (not skipped).
    markSent: function () {
      sentKey = current;
    },
    // The hidden fields stored with the answer.
    fill: function (form) {
      form.elements.client_elapsed_ms.value = String(Math.round((spent.get(current) || 0) + visibleMs()));
      form.elements.client_input.value = input || "pointer";
      form.elements.client_viewport.value = window.innerWidth + "x" + window.innerHeight;
    },
  };
})();
