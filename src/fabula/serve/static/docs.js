// The API page: every endpoint of /openapi.json with its parameters, drawn by this script (no CDN, no
// third-party viewer). Text from the description is set with textContent only.
"use strict";
(async function () {
  const note = document.getElementById("note");
  const root = document.getElementById("endpoints");
  const add = (parent, tag, text, className) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    parent.appendChild(node);
    return node;
  };
  try {
    const spec = await (await fetch("/openapi.json")).json();
    note.textContent = (spec.info.description || "") + " Version " + spec.info.version + ".";
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const section = add(root, "section", undefined, "endpoint");
        add(section, "h2", method.toUpperCase() + " " + path);
        if (operation.summary) add(section, "p", operation.summary);
        const parameters = operation.parameters || [];
        if (parameters.length) {
          const list = add(section, "ul");
          for (const parameter of parameters) {
            const item = add(list, "li");
            add(item, "code", parameter.name);
            const schema = parameter.schema || {};
            const kind = schema.type || (schema.anyOf || []).map((s) => s.type).join(" | ");
            const extra = [parameter.in, kind, parameter.required ? "required" : "optional"];
            if (schema.default !== undefined) extra.push("default " + JSON.stringify(schema.default));
            add(item, "span", " (" + extra.join(", ") + ") ", "muted");
            if (parameter.description) add(item, "span", parameter.description);
          }
        }
      }
    }
  } catch (error) {
    note.textContent = "Could not load /openapi.json: " + error;
  }
})();
