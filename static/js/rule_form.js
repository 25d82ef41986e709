// A new rule starts from its kind's defaults: choosing another kind in the "Add a rule" form fills
// in that kind's settings (the links above the form do the same without JavaScript), so that a
// competence or position-bias rule never keeps the bar of gold accuracy by accident.
(function () {
  "use strict";

  const data = document.getElementById("rule-defaults");
  const form = document.querySelector("form[data-testid=add-rule]");
  if (!data || !form) return;
  const defaults = JSON.parse(data.textContent);
  const kind = form.querySelector("select[name=kind]");
  if (!kind) return;

  kind.addEventListener("change", function () {
    const values = defaults[kind.value];
    if (!values) return;
    Object.keys(values).forEach(function (name) {
      const field = form.elements.namedItem(name);
      if (field && "value" in field) field.value = String(values[name]);
    });
  });
})();
