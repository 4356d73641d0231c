// Every curation screen: htmx swaps only 2xx answers, so say so when the server refused or
// failed a request, instead of nothing. (A screen that answers a refusal with its own
// fragment, as the unit editor's 422, lets htmx swap it and this stays silent.)
(function () {
  "use strict";

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr.status;
    var text = status === 403
      ? "You are not allowed to do this (403); are you still signed in with the right role? Reload the page."
      : status === 404
        ? "What you acted on no longer exists (404). Reload the page."
        : "The server answered " + status + "; nothing was changed on this screen. Reload the page.";
    var list = document.getElementById("screen-error");
    if (!list) {
      list = document.createElement("ul");
      list.id = "screen-error";
      list.className = "messagelist";
      list.setAttribute("role", "alert");
      var main = document.getElementById("content-main");
      main.insertBefore(list, main.firstChild);
    }
    list.innerHTML = "";
    var item = document.createElement("li");
    item.className = "error";
    item.textContent = text;
    list.appendChild(item);
  });
})();
