// The library page: one link per book the server was given. Book text is set with textContent only.
"use strict";
(async function () {
  const note = document.getElementById("note");
  const list = document.getElementById("books");
  try {
    const response = await fetch("/api/books");
    const data = await response.json();
    for (const book of data.books) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = "/read/" + encodeURIComponent(book.id);
      link.textContent = book.title || book.id;
      item.appendChild(link);
      const file = document.createElement("span");
      file.className = "muted";
      file.textContent = " " + book.file;
      item.appendChild(file);
      list.appendChild(item);
    }
    note.textContent = data.books.length + " book(s). Open one to read it with its companion.";
  } catch (error) {
    note.textContent = "Could not load the library: " + error;
  }
})();
