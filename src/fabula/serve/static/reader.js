// The reading view of `fabula serve`: the text, a reading position (scrolling or the slider), and a side
// panel with what the API returns at that position. Book text only ever goes in through textContent,
// createTextNode or the title attribute; never through innerHTML.
"use strict";
(function () {
  const bookId = decodeURIComponent(location.pathname.split("/").pop());
  const api = "/api/books/" + encodeURIComponent(bookId);
  const el = (id) => document.getElementById(id);
  const reader = el("reader"), slider = el("slider"), panel = el("panel"), statusLine = el("status");
  let meta = null;          // the book's status: body_start, body_end, title...
  let paragraphs = [];      // <p> elements in book order, each with data-start / data-end
  let starts = [];          // their start offsets (for binary search)
  let position = 0;         // the reader's position (a character offset)
  let peeking = false;      // looking back at a recap passage: scrolling does not move the position
  let panelTimer = null, scrollTimer = null, requestCounter = 0;

  function make(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  async function getJson(url) {
    const response = await fetch(url);
    const data = await response.json();
    if (!response.ok) throw new Error(data.detail || response.statusText);
    return data;
  }

  function percent(offset) {
    const span = Math.max(1, meta.body_end - meta.body_start);
    return Math.round((1000 * (offset - meta.body_start)) / span) / 10;
  }

  function paragraphAt(offset) {  // the last paragraph starting at or before offset
    let lo = 0, hi = starts.length - 1, found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= offset) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return paragraphs[found];
  }

  async function open() {
    statusLine.textContent = "Opening the book…";
    for (;;) {
      meta = await getJson(api);
      if (meta.state === "ready") break;
      if (meta.state === "failed") { statusLine.textContent = meta.error; return; }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    document.title = "fabula — " + (meta.title || bookId);
    el("title").textContent = meta.title || bookId;
    // the reader asks for the whole text: it is theirs to read; the panel only knows up to the position
    const text = await getJson(api + "/text?at=" + meta.body_end);
    const headings = new Set();
    const chapters = await getJson(api + "/chapters?at=" + meta.body_end);
    for (const chapter of chapters.chapters) headings.add(chapter.start);
    const fragment = document.createDocumentFragment();
    for (const [start, end] of text.paragraphs) {
      const p = make("p", text.text.slice(start - text.start, end - text.start));
      p.dataset.start = start;
      p.dataset.end = end;
      if (headings.has(start)) p.className = "heading";
      fragment.appendChild(p);
      paragraphs.push(p);
      starts.push(start);
    }
    reader.appendChild(fragment);
    statusLine.textContent = "";
    reader.addEventListener("scroll", () => {
      if (peeking) return;
      clearTimeout(scrollTimer);
      scrollTimer = setTimeout(positionFromScroll, 120);
    });
    slider.addEventListener("input", () => moveTo(sliderOffset()));
    el("back").addEventListener("click", () => moveTo(position));
    el("search-form").addEventListener("submit", (event) => { event.preventDefault(); search(); });
    positionFromScroll();
  }

  function sliderOffset() {
    return Math.round(meta.body_start + (Number(slider.value) / 1000) * (meta.body_end - meta.body_start));
  }

  function moveTo(offset) {  // scroll so the paragraph holding offset is the last one fully in view
    peeking = false;
    el("back").hidden = true;
    const p = paragraphAt(offset);
    reader.scrollTop = Math.max(0, p.offsetTop + p.offsetHeight - reader.clientHeight + 2);
    positionFromScroll();
  }

  function firstBelow(bottom) {  // index of the first paragraph whose bottom edge is below `bottom`
    let lo = 0, hi = paragraphs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const p = paragraphs[mid];
      if (p.offsetTop + p.offsetHeight > bottom) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  function positionFromScroll() {  // read up to the first paragraph not wholly in view
    const i = firstBelow(reader.scrollTop + reader.clientHeight);
    setPosition(i < paragraphs.length ? Number(paragraphs[i].dataset.start) : meta.body_end);
  }

  function setPosition(offset) {
    if (offset === position && panel.dataset.state !== "waiting") return;
    position = offset;
    slider.value = String(Math.round(percent(offset) * 10));
    el("where").textContent = percent(offset) + " %";
    clearTimeout(panelTimer);
    panelTimer = setTimeout(updatePanel, 250);
  }

  async function updatePanel() {
    const request = ++requestCounter;
    const at = position;
    panel.dataset.state = "loading";
    const progress = setInterval(showProgress, 400);
    try {
      const [cast, recap] = await Promise.all([
        getJson(api + "/characters?at=" + at),
        getJson(api + "/recap?at=" + at),
      ]);
      if (request !== requestCounter) return;
      renderCast(cast);
      renderRecaps(recap);
      const quotes = await getJson(api + "/quotes?at=" + at + "&start=" + visibleStart());
      if (request !== requestCounter) return;
      renderQuotes(quotes);
      panel.dataset.at = String(at);
      panel.dataset.state = "ready";
      statusLine.textContent = "";
    } catch (error) {
      if (request === requestCounter) {
        panel.dataset.state = "failed";
        statusLine.textContent = "Could not update the panel: " + error.message;
      }
    } finally {
      clearInterval(progress);
    }
  }

  async function showProgress() {
    try {
      const now = await getJson(api);
      if (panel.dataset.state === "loading") {
        statusLine.textContent = now.analysing ? "Analysing the book, " + now.analysing + "…" : "Working…";
      }
    } catch (error) { /* the next update will say */ }
  }

  function visibleStart() {
    const i = firstBelow(reader.scrollTop);
    return i < paragraphs.length ? Number(paragraphs[i].dataset.start) : meta.body_start;
  }

  function renderCast(data) {
    const list = el("cast");
    list.replaceChildren();
    for (const character of data.characters) {
      const item = make("li");
      const button = make("button", character.name);
      button.type = "button";
      button.dataset.id = character.id;
      button.addEventListener("click", () => showSheet(character.id, data.at));
      item.appendChild(button);
      const others = character.also;
      if (others.length) item.appendChild(make("span", " also " + others.join(", "), "names"));
      list.appendChild(item);
    }
    // the cast comes from the last checkpoint at or before the reader (never past it): say which, when
    // it lags the reader, rather than let "no one yet" stand beside names already on the screen
    const count = data.characters.length;
    const met = count === 0 ? "no one yet" : count + (count === 1 ? " character" : " characters") + " met";
    const upTo = percent(data.analysed_until), here = percent(data.at);
    el("cast-note").textContent = upTo < here
      ? "As of " + upTo + " % (you are at " + here + " %; the cast catches up at the next checkpoint): " + met + "."
      : met.charAt(0).toUpperCase() + met.slice(1) + " by " + upTo + " %.";
    if (data.set_aside.length) {  // where a reader missing a name from the cast finds it
      el("cast-note").textContent += " Set aside, named but never shown as a person: "
        + data.set_aside.map((entry) => entry.name).join(", ") + ".";
    }
  }

  async function showSheet(characterId, at) {
    const section = el("sheet"), body = el("sheet-body");
    section.hidden = false;
    el("sheet-name").textContent = "…";
    body.replaceChildren();
    section.scrollIntoView({ block: "start" });  // the sheet sits below the cast and recaps: bring it up
    try {
      const url = api + "/characters/" + encodeURIComponent(characterId) + "?at=" + at;
      const sheet = await getJson(url);  // the sheet at once; with --llm the model's description follows
      el("sheet-name").textContent = sheet.name;
      section.scrollIntoView({ block: "start" });
      const facts = [];
      if (sheet.aliases.length) facts.push("also called " + sheet.aliases.join(", "));
      if (sheet.gender && sheet.gender !== "unknown") facts.push(sheet.gender);
      if (sheet.first_chapter) facts.push("first met in chapter " + sheet.first_chapter);
      facts.push(sheet.mentions + " mentions, " + sheet.quotes + " lines so far");
      body.appendChild(make("p", facts.join(" · ")));
      if (sheet.talks_most_with.length) {
        body.appendChild(make("p", "Talks most with " +
          sheet.talks_most_with.map((p) => p.name + " (" + p.count + ")").join(", ")));
      }
      const generated = make("div", null, "generated");
      body.appendChild(generated);
      if (meta.llm) describe(url, generated);
      if (sheet.description.length) {
        body.appendChild(make("h3", "From the book"));
        for (const sentence of sheet.description) body.appendChild(make("p", sentence.text, "profile"));
      }
      if (sheet.lines.length) {
        body.appendChild(make("h3", "Characteristic lines"));
        for (const line of sheet.lines) body.appendChild(make("blockquote", line));
      }
    } catch (error) {
      el("sheet-name").textContent = "Could not load the sheet: " + error.message;
    }
  }

  async function describe(url, target) {  // the LLM description, when the server has a model
    target.appendChild(make("p", "The model is writing a description from what you have read…", "muted"));
    try {
      const sheet = await getJson(url + "&llm=true");
      target.replaceChildren();
      const generated = sheet.generated || {};
      target.appendChild(make("h3", "Description (LLM)"));
      target.appendChild(make("p", generated.error ? "The model failed: " + generated.error : generated.text));
    } catch (error) {
      target.replaceChildren(make("p", "No description: " + error.message, "muted"));
    }
  }

  function renderRecaps(data) {
    const list = el("recaps");
    list.replaceChildren();
    for (const snippet of data.snippets) {
      const item = make("li");
      const link = make("a", (snippet.chapter ? "Chapter " + snippet.chapter + ": " : "") + shorten(snippet.text, 280));
      link.href = "#at-" + snippet.start;
      link.dataset.start = snippet.start;
      link.addEventListener("click", (event) => { event.preventDefault(); jump(snippet.start); });
      item.appendChild(link);
      list.appendChild(item);
    }
    if (!data.snippets.length) list.appendChild(make("li", "Nothing to recap yet.", "muted note"));
  }

  function shorten(text, width) {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length <= width ? flat : flat.slice(0, width - 1) + "…";
  }

  function jump(offset) {  // look back at a passage without moving the reading position
    peeking = true;
    el("back").hidden = false;
    const p = paragraphAt(offset);
    for (const old of reader.querySelectorAll("p.flash")) old.classList.remove("flash");
    p.classList.add("flash");
    p.scrollIntoView({ block: "center" });
  }

  function renderQuotes(data) {  // the speaker of each quotation in view, on hover
    for (const quote of data.quotes) {
      if (!quote.speaker) continue;
      const p = paragraphAt(quote.start);
      const pStart = Number(p.dataset.start), pEnd = Number(p.dataset.end);
      if (quote.end > pEnd || p.querySelector('[data-quote="' + quote.start + '"]')) continue;
      const node = textNodeAt(p, quote.start - pStart, quote.end - pStart);
      if (!node) continue;
      const [from, to] = node.range;
      const span = make("span", node.text.data.slice(from, to), "quote");
      span.title = quote.speaker + (quote.addressees.length ? " to " + quote.addressees.join(", ") : "");
      span.dataset.quote = quote.start;
      const after = node.text.splitText(from);
      after.splitText(to - from);
      p.replaceChild(span, after);
    }
  }

  function textNodeAt(p, from, to) {  // the plain text node of p holding [from, to), with local offsets
    let offset = 0;
    for (const child of p.childNodes) {
      const length = child.textContent.length;
      if (child.nodeType === Node.TEXT_NODE && from >= offset && to <= offset + length) {
        return { text: child, range: [from - offset, to - offset] };
      }
      offset += length;
    }
    return null;
  }

  async function search() {
    const query = el("search-q").value.trim();
    const list = el("hits");
    list.replaceChildren();
    if (!query) return;
    try {
      const data = await getJson(api + "/search?k=8&at=" + position + "&q=" + encodeURIComponent(query));
      for (const hit of data.hits) {
        const item = make("li");
        const link = make("a", (hit.chapter ? "Chapter " + hit.chapter + ": " : "") + shorten(hit.text, 200));
        link.href = "#at-" + hit.start;
        link.addEventListener("click", (event) => { event.preventDefault(); jump(hit.start); });
        item.appendChild(link);
        list.appendChild(item);
      }
      if (!data.hits.length) list.appendChild(make("li", "No passage so far matches.", "muted"));
    } catch (error) {
      list.appendChild(make("li", "Search failed: " + error.message, "muted"));
    }
  }

  open().catch((error) => { statusLine.textContent = "Could not open the book: " + error.message; });
})();
