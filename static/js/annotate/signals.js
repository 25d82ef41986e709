// Annotation page (see page.js): authenticity signals sent with each answer, as evidence for the
// project's staff (docs/quality/worker-page.md): characters pasted into the item's text fields,
// the time the page was hidden and how often the window lost focus while the item was on screen,
// and whether the browser says it is driven by automation (navigator.webdriver). They are counted
// per item, like its time (metrics.js), and go with the answer as hidden fields made here. With
// them goes the browser's device id: a random id kept in local storage, the same for every
// account that answers from this browser profile, so that staff see accounts sharing one.
(function () {
  "use strict";

  const page = (window.annotatePage = window.annotatePage || {});
  const metrics = page.metrics;
  if (!metrics) return;

  const FIELDS = ["client_pasted", "client_hidden_ms", "client_blurs", "client_webdriver", "client_device"];
  const DEVICE_KEY = "argcrowd-device";

  function deviceId() {
    // Storage may be off (a private window, a blocked site): then no id is sent.
    try {
      let id = window.localStorage.getItem(DEVICE_KEY);
      if (!id && window.crypto && window.crypto.randomUUID) {
        id = window.crypto.randomUUID();
        window.localStorage.setItem(DEVICE_KEY, id);
      }
      return id || "";
    } catch (error) {
      return "";
    }
  }
  const counts = new Map();
  let sentKey = null;
  let hiddenSince = document.hidden ? performance.now() : null;

  function of(key) {
    if (!counts.has(key)) counts.set(key, { pasted: 0, hiddenMs: 0, blurs: 0 });
    return counts.get(key);
  }

  function chargeHidden() {
    if (hiddenSince === null) return;
    const now = performance.now();
    of(metrics.current()).hiddenMs += now - hiddenSince;
    hiddenSince = document.hidden ? now : null;
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      if (hiddenSince === null) hiddenSince = performance.now();
    } else {
      chargeHidden();
    }
  });

  window.addEventListener("blur", function () {
    if (metrics.current() !== null) of(metrics.current()).blurs += 1;
  });

  document.addEventListener("paste", function (event) {
    const form = page.taskForm();
    const field = event.target;
    if (!form || !field || !form.contains(field) || !/^(TEXTAREA|INPUT)$/.test(field.tagName)) return;
    const data = event.clipboardData ? event.clipboardData.getData("text") : "";
    of(metrics.current()).pasted += data.length;
  }, true);

  const switchTo = metrics.switchTo;
  metrics.switchTo = function (key) {
    chargeHidden();
    // The item just sent is done: a later visit (changing the answer) counts afresh.
    if (sentKey !== null && sentKey !== key) counts.delete(sentKey);
    sentKey = null;
    switchTo(key);
  };

  const markSent = metrics.markSent;
  metrics.markSent = function () {
    sentKey = metrics.current();
    markSent();
  };

  function field(form, name) {
    let input = form.elements[name];
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.appendChild(input);
    }
    return input;
  }

  const fill = metrics.fill;
  metrics.fill = function (form) {
    fill(form);
    chargeHidden();
    const c = of(metrics.current());
    field(form, FIELDS[0]).value = String(c.pasted);
    field(form, FIELDS[1]).value = String(Math.round(c.hiddenMs));
    field(form, FIELDS[2]).value = String(c.blurs);
    field(form, FIELDS[3]).value = navigator.webdriver === true ? "1" : "0";
    field(form, FIELDS[4]).value = deviceId();
  };
})();
