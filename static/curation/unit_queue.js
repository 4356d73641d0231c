// Keyboard of the review queue (what to review first); htmx makes the requests.
//   j or n next unit, k previous unit, s sign off, e edit, t send to triage, r retire.
// t and r ask the reason first: the current unit's reason field takes the keys, Enter sends
// it to the action chosen, Escape leaves it. Keys typed in a text field are text.
(function () {
  "use strict";

  var NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset"];
  var current = 0;

  function isTextEntry(element) {
    if (!(element instanceof HTMLElement)) return false;
    if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") return true;
    return element.tagName === "INPUT" && NOT_TEXT.indexOf(element.type) < 0;
  }

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#queue-list .queue-row"));
  }

  function currentRow() {
    var list = rows();
    return list.length ? list[Math.min(current, list.length - 1)] : null;
  }

  function mark(scroll) {
    var list = rows();
    current = Math.min(current, Math.max(list.length - 1, 0));
    list.forEach(function (row, index) {
      row.classList.toggle("current", index === current);
      if (index === current && scroll) row.scrollIntoView({ block: "nearest" });
    });
  }

  function move(step) {
    current = Math.min(Math.max(current + step, 0), Math.max(rows().length - 1, 0));
    mark(true);
  }

  function press(button) {
    if (!button) return;
    var form = button.closest("form");
    if (form && form.classList.contains("htmx-request")) return;  // one change at a time
    // A key pressed just after a swap may come before htmx has wired the new form, and the
    // browser would then post it as a plain form; wiring twice is harmless.
    if (window.htmx) window.htmx.process(form || button);
    button.click();
  }

  function askReason(action) {
    var row = currentRow();
    var form = row && row.querySelector("form.remove-form");
    if (!form || !form.querySelector('button[data-action="' + action + '"]')) return;
    form.setAttribute("data-chosen", action);
    form.querySelector('input[name="reason"]').focus();
  }

  document.addEventListener("keydown", function (event) {
    if (!document.getElementById("queue-list")) return;
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (isTextEntry(target)) {
      if (event.key === "Escape") target.blur();
      var form = target.closest("form.remove-form");
      if (event.key === "Enter" && form && target.name === "reason") {
        event.preventDefault();
        var chosen = form.getAttribute("data-chosen") || "triage";
        press(form.querySelector('button[data-action="' + chosen + '"]') ||
              form.querySelector("button[data-action]"));
      }
      return;
    }
    var row = currentRow();
    var key = event.key;
    if (key === "j" || key === "n" || key === "k") {
      event.preventDefault();
      move(key === "k" ? -1 : 1);
    } else if (key === "s" && row) {
      event.preventDefault();
      press(row.querySelector("form.signoff-form button"));
    } else if (key === "e" && row) {
      var edit = row.querySelector("a.edit-link");
      if (edit) {
        event.preventDefault();
        edit.click();
      }
    } else if (key === "t" || key === "r") {
      event.preventDefault();
      askReason(key === "t" ? "triage" : "retire");
    }
  });

  // A click on a row makes it the current one.
  document.addEventListener("click", function (event) {
    var row = event.target.closest && event.target.closest("#queue-list .queue-row");
    if (!row) return;
    current = rows().indexOf(row);
    mark(false);
  });

  // After a change the unit moves down or leaves: the one now in its place is current.
  document.addEventListener("DOMContentLoaded", function () { mark(false); });
  document.addEventListener("htmx:afterSettle", function () { mark(true); });
})();
