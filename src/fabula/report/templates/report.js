"use strict";
(function () {
  // All book text is inserted with textContent, never as HTML.
  var data = JSON.parse(document.getElementById("fabula-data").textContent);
  var characters = data.characters, quotes = data.quotes; // quote: [speaker, chapter, text, addressees]
  var PAGE = 100;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function quoteItem(q, withSpeaker) {
    var li = el("li");
    var who = q[0] >= 0 ? characters[q[0]] : null;
    if (who) li.style.borderLeftColor = who.color;
    if (withSpeaker) li.appendChild(el("span", "who", who ? who.name : "(no speaker found)"));
    var where = "chapter " + q[1];
    if (q[3].length) where += " · to " + q[3].map(function (i) { return characters[i].name; }).join(", ");
    li.appendChild(el("span", "where", where));
    li.appendChild(withEmphasis(el("span", "text"), "\u201c" + q[2] + "\u201d"));
    return li;
  }

  // Gutenberg's _emphasis_ in italics: text nodes and <em> elements, still never parsed as HTML.
  var EMPHASIS = /(^|[^\w_])_(?=[^_\s])([^_]*?[^_\s])_(?![\w_])/g;
  function plain(text) { return text.replace(EMPHASIS, "$1$2"); }
  function withEmphasis(node, text) {
    var last = 0, match;
    EMPHASIS.lastIndex = 0;
    while ((match = EMPHASIS.exec(text)) !== null) {
      var start = match.index + match[1].length;
      node.appendChild(document.createTextNode(text.slice(last, start)));
      node.appendChild(el("em", null, match[2]));
      last = EMPHASIS.lastIndex;
    }
    node.appendChild(document.createTextNode(text.slice(last)));
    return node;
  }

  // A list that shows matching quotes a page at a time.
  function pagedList(list, button, withSpeaker) {
    var items = [], shown = 0;
    function more() {
      var end = Math.min(items.length, shown + PAGE);
      var fragment = document.createDocumentFragment();
      for (var i = shown; i < end; i++) fragment.appendChild(quoteItem(items[i], withSpeaker));
      list.appendChild(fragment);
      shown = end;
      button.hidden = shown >= items.length;
    }
    button.addEventListener("click", more);
    return function show(matching) {
      items = matching; shown = 0;
      list.textContent = "";
      more();
    };
  }

  // --- sortable tables -------------------------------------------------------------------------
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.querySelectorAll("th");
    headers.forEach(function (th, column) {
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        var numeric = th.dataset.type === "number";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column].dataset.v, y = b.cells[column].dataset.v;
          var order;
          if (numeric) {
            var nx = x === "" ? Infinity : Number(x), ny = y === "" ? Infinity : Number(y);
            order = nx === ny ? 0 : (nx < ny ? -1 : 1);
          } else {
            order = x.localeCompare(y);
          }
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
        headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      });
    });
  });

  // --- quote browser ---------------------------------------------------------------------------
  var speaker = document.getElementById("speaker-filter");
  var search = document.getElementById("quote-search");
  var count = document.getElementById("quote-count");
  var showQuotes = pagedList(document.getElementById("quote-list"), document.getElementById("quote-more"), true);

  function filterQuotes() {
    var who = speaker.value, words = search.value.trim().toLowerCase();
    var matching = quotes.filter(function (q) {
      if (who !== "all" && q[0] !== Number(who)) return false;
      return !words || plain(q[2]).toLowerCase().indexOf(words) !== -1;
    });
    count.textContent = matching.length + " of " + quotes.length + " quotations";
    showQuotes(matching);
  }
  speaker.addEventListener("change", filterQuotes);
  search.addEventListener("input", filterQuotes);
  filterQuotes();

  // --- character panels ------------------------------------------------------------------------
  document.querySelectorAll(".swatch").forEach(function (swatch) {
    swatch.style.background = characters[Number(swatch.dataset.index)].color;
  });
  document.querySelectorAll("details.panel").forEach(function (panel) {
    var index = Number(panel.dataset.index), filled = false;
    var show = pagedList(panel.querySelector("ol.lines"), panel.querySelector("button.lines-more"), false);
    panel.addEventListener("toggle", function () {
      if (!panel.open || filled) return;
      filled = true;
      show(quotes.filter(function (q) { return q[0] === index; }));
    });
  });

  function openFromHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") {
      target.open = true;
      target.scrollIntoView({ block: "start" });
    }
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
})();
