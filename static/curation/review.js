// Keyboard shortcuts of the superseding review queue; htmx makes the requests. (The decision
// log loads it too; a refused htmx request is told by refusals.js on every screen.)
//   a approve, r reject, f flag for deletion, j next pair, k previous pair, n write a note.
// Keys typed in a text field are text, not shortcuts; Escape leaves the field.
(function () {
  "use strict";

  var DECISIONS = { a: "approve", r: "reject", f: "flag" };
  var NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset"];

  function isTextEntry(element) {
    if (!(element instanceof HTMLElement)) return false;
    if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") {
      return true;
    }
    return element.tagName === "INPUT" && NOT_TEXT.indexOf(element.type) < 0;
  }

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#review-list .pair-row"));
  }

  function shownPairId() {
    var shown = document.querySelector("#review-pair [data-pair-id]");
    return shown ? shown.getAttribute("data-pair-id") : null;
  }

  function move(step) {
    var list = rows();
    if (!list.length) return;
    var id = shownPairId();
    var index = list.findIndex(function (row) { return row.getAttribute("data-pair-id") === id; });
    var next = index < 0 ? 0 : Math.min(Math.max(index + step, 0), list.length - 1);
    if (next === index) return;
    var link = list[next].querySelector("a.pair-link");
    if (window.htmx) window.htmx.process(link);  // see decide()
    link.click();
  }

  function decide(decision) {
    var form = document.querySelector("#review-pair form.decision-form");
    if (!form || form.classList.contains("htmx-request")) return;  // one decision at a time
    var button = form.querySelector('button[value="' + decision + '"]');
    if (!button) return;
    // A key pressed just after a swap may come before htmx has wired the new form, and the
    // browser would then post it as a plain form; wiring twice is harmless.
    if (window.htmx) window.htmx.process(form);
    button.click();
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTextEntry(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    var key = event.key;
    if (DECISIONS[key]) {
      event.preventDefault();
      decide(DECISIONS[key]);
    } else if (key === "j" || key === "k") {
      event.preventDefault();
      move(key === "j" ? 1 : -1);
    } else if (key === "n") {
      var note = document.getElementById("review-note");
      if (note) {
        event.preventDefault();
        note.focus();
      }
    }
  });

  // Mark the queue row of the pair shown, however it came (click, j/k, a decision).
  function markCurrent() {
    var id = shownPairId();
    rows().forEach(function (row) {
      var current = row.getAttribute("data-pair-id") === id;
      row.classList.toggle("current", current);
      if (current) row.scrollIntoView({ block: "nearest" });
    });
  }

  document.addEventListener("DOMContentLoaded", markCurrent);
  document.addEventListener("htmx:afterSettle", markCurrent);

  document.addEventListener("change", function (event) {
    if (event.target.id !== "select-all") return;
    rows().forEach(function (row) {
      var box = row.querySelector('input[name="ids"]');
      if (box) box.checked = event.target.checked;
    });
  });
})();
