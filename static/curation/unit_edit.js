// The unit editor's keyboard and quote selection; htmx makes the requests.
//   In the page text (p to go there): → / ← the quote ends a word later / earlier,
//   Shift+← / Shift+→ it starts a word earlier / later, "." it ends with its sentence; or
//   select it with the mouse. 2: the selection sets the split's second quote (again: the
//   unit's). Anywhere: Ctrl+Enter saves, t the statement, d the dates, u undo.
// Keys typed in a text field are text, not shortcuts; Escape leaves the field.
// Offsets count characters of the page text exactly as the server holds it: the panel's
// textContent is that text, and the server checks the quote at the offsets again.
(function () {
  "use strict";

  var NOT_TEXT = ["checkbox", "radio", "button", "submit", "reset", "hidden"];
  var target = "unit";  // which quote a selection or a key sets: "unit" or "second"

  function $(selector) { return document.querySelector(selector); }
  function isSpace(c) { return /\s/.test(c); }

  function isTextEntry(element) {
    if (!(element instanceof HTMLElement)) return false;
    if (element.isContentEditable || element.tagName === "TEXTAREA" || element.tagName === "SELECT") {
      return true;
    }
    return element.tagName === "INPUT" && NOT_TEXT.indexOf(element.type) < 0;
  }

  function pageText() {
    var panel = $("#page-text");
    return panel ? panel.textContent : "";
  }

  function inputs() {
    if (target === "second") {
      return {
        start: $('#split-form [name="second_start"]'),
        end: $('#split-form [name="second_end"]'),
      };
    }
    return { start: $("#id_evidence_start"), end: $("#id_evidence_end") };
  }

  function span() {
    var fields = inputs();
    var text = pageText();
    var start = parseInt(fields.start.value, 10);
    var end = parseInt(fields.end.value, 10);
    if (isNaN(start) || isNaN(end)) {  // the second part has no quote yet: start at the unit's end
      start = parseInt($("#id_evidence_end").value, 10);
      end = Math.min(text.length, start + 1);
    }
    return { start: start, end: end };
  }

  // Redraw the panel with the quote marked, and every field and preview that shows it.
  function show(start, end) {
    var panel = $("#page-text");
    var text = pageText();
    if (!panel || start < 0 || end > text.length || end <= start) return;
    var fields = inputs();
    fields.start.value = start;
    fields.end.value = end;
    var quote = text.slice(start, end);
    var mark = document.createElement("mark");
    mark.id = "quote-mark";
    if (target === "second") mark.className = "second-quote";
    mark.textContent = quote;
    panel.replaceChildren(document.createTextNode(text.slice(0, start)), mark,
                          document.createTextNode(text.slice(end)));
    if (target === "second") {
      $("#second-quote").textContent = quote;
      return;
    }
    $("#id_evidence_quote").value = quote;
    $("#quote-start").textContent = start;
    $("#quote-end").textContent = end;
    $("#quote-text").textContent = quote;
    var first = $('#split-form [name="first_start"]');
    if (first) {
      first.value = start;
      $('#split-form [name="first_end"]').value = end;
    }
  }

  function endLater(text, end) {
    var i = end;
    while (i < text.length && isSpace(text[i])) i++;
    while (i < text.length && !isSpace(text[i])) i++;
    return i;
  }

  function endEarlier(text, start, end) {
    var i = end;
    while (i > start && !isSpace(text[i - 1])) i--;
    while (i > start && isSpace(text[i - 1])) i--;
    return i > start ? i : end;
  }

  function startEarlier(text, start) {
    var i = start;
    while (i > 0 && isSpace(text[i - 1])) i--;
    while (i > 0 && !isSpace(text[i - 1])) i--;
    return i;
  }

  function startLater(text, start, end) {
    var i = start;
    while (i < end && !isSpace(text[i])) i++;
    while (i < end && isSpace(text[i])) i++;
    return i < end ? i : start;
  }

  function sentenceEnd(text, end) {
    var rest = text.slice(end);
    var found = rest.search(/[.!?](\s|$)|\n/);
    if (found < 0) return text.length;
    return end + found + (rest[found] === "\n" ? 0 : 1);
  }

  function moveQuote(event) {
    var text = pageText();
    var now = span();
    var start = now.start;
    var end = now.end;
    if (event.key === "ArrowRight" && event.shiftKey) start = startLater(text, start, end);
    else if (event.key === "ArrowLeft" && event.shiftKey) start = startEarlier(text, start);
    else if (event.key === "ArrowRight") end = endLater(text, end);
    else if (event.key === "ArrowLeft") end = endEarlier(text, start, end);
    else if (event.key === ".") end = sentenceEnd(text, end);
    else return false;
    show(start, end);
    return true;
  }

  function selectionOffsets(panel) {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return null;
    var range = selection.getRangeAt(0);
    if (!panel.contains(range.startContainer) || !panel.contains(range.endContainer)) return null;
    var before = document.createRange();
    before.setStart(panel, 0);
    before.setEnd(range.startContainer, range.startOffset);
    var start = before.toString().length;
    return { start: start, end: start + range.toString().length };
  }

  document.addEventListener("mouseup", function (event) {
    var panel = $("#page-text");
    if (!panel || !panel.contains(event.target)) return;
    var offsets = selectionOffsets(panel);
    if (!offsets) return;
    var text = pageText();
    while (offsets.start < offsets.end && isSpace(text[offsets.start])) offsets.start++;
    while (offsets.end > offsets.start && isSpace(text[offsets.end - 1])) offsets.end--;
    if (offsets.end > offsets.start) show(offsets.start, offsets.end);
  });

  document.addEventListener("keydown", function (event) {
    var active = document.activeElement;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      var form = $("#correction-form");
      if (form && (!isTextEntry(active) || form.contains(active))) {
        event.preventDefault();
        form.requestSubmit();
      }
      return;
    }
    if (isTextEntry(active)) {
      if (event.key === "Escape") active.blur();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var panel = $("#page-text");
    if (panel && active === panel && moveQuote(event)) {
      event.preventDefault();
      return;
    }
    var focus = { p: "#page-text", t: "#id_text", d: "#id_valid_from" }[event.key];
    if (focus && $(focus)) {
      event.preventDefault();
      $(focus).focus();
    } else if (event.key === "u" && $("#undo-correction")) {
      $("#undo-correction").click();
    } else if (event.key === "2" && $("#split-form")) {
      $("#split-form").closest("details").open = true;
      target = target === "second" ? "unit" : "second";
      var now = span();
      show(now.start, now.end);
      if (panel) panel.focus();
    }
  });

  document.addEventListener("htmx:afterSwap", function () { target = "unit"; });

  // A refused correction answers 422 (or 409 for an undo) with the editor and its reason:
  // htmx swaps only 2xx answers unless told, and the reason must be seen.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr.status;
    if ((status === 422 || status === 409) && event.detail.target.id === "unit-editor") {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
