// Keyboard of the audit sample's judging screen; htmx makes the requests.
//   1-6 choose a question and toggle it yes/no, n not applicable for the chosen question,
//   y yes to every question still unanswered, Enter save and next, j/k next/previous unit,
//   e write a note. Keys typed in a text field are text; Escape leaves it.
(function () {
  "use strict";

  var NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset"];
  var current = 1;

  function isTextEntry(element) {
    if (!(element instanceof HTMLElement)) return false;
    if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
    return element.tagName === "INPUT" && NOT_TEXT.indexOf(element.type) < 0;
  }

  function question(key) {
    return document.querySelector('#audit-form .audit-question[data-key="' + key + '"]');
  }

  function choose(key) {
    current = key;
    document.querySelectorAll("#audit-form .audit-question").forEach(function (fieldset) {
      fieldset.classList.toggle("current", fieldset.getAttribute("data-key") === String(key));
    });
  }

  function answer(fieldset, value) {
    var radio = fieldset.querySelector('input[value="' + value + '"]');
    if (radio) radio.checked = true;
  }

  function toggle(key) {
    var fieldset = question(key);
    if (!fieldset) return;
    choose(key);
    var checked = fieldset.querySelector("input:checked");
    answer(fieldset, checked && checked.value === "yes" ? "no" : "yes");
  }

  function save() {
    var form = document.getElementById("audit-form");
    if (!form || form.classList.contains("htmx-request")) return;
    if (window.htmx) window.htmx.process(form);  // a key just after a swap: wire it first
    form.querySelector("button[type=submit]").click();
  }

  function follow(selector) {
    var link = document.querySelector(selector);
    if (!link) return;
    if (window.htmx) window.htmx.process(link);
    link.click();
  }

  document.addEventListener("keydown", function (event) {
    if (!document.getElementById("audit-form")) return;
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTextEntry(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;  // Enter in the note submits the form by itself
    }
    var key = event.key;
    if (/^[1-6]$/.test(key)) {
      event.preventDefault();
      toggle(Number(key));
    } else if (key === "n") {
      event.preventDefault();
      var fieldset = question(current);
      if (fieldset) answer(fieldset, "na");
    } else if (key === "y") {
      event.preventDefault();
      document.querySelectorAll("#audit-form .audit-question").forEach(function (fieldset) {
        if (!fieldset.querySelector("input:checked")) answer(fieldset, "yes");
      });
    } else if (key === "Enter") {
      event.preventDefault();
      save();
    } else if (key === "j" || key === "k") {
      event.preventDefault();
      follow(key === "j" ? "#audit-judge a.audit-next" : "#audit-judge a.audit-prev");
    } else if (key === "e") {
      var note = document.getElementById("audit-note");
      if (note) {
        event.preventDefault();
        note.focus();
      }
    }
  });

  function reset() { choose(1); }
  document.addEventListener("DOMContentLoaded", reset);
  document.addEventListener("htmx:afterSettle", reset);
})();
