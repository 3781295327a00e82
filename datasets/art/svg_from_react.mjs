// Turn the React SVG components of the npm package @letele/playing-cards (CC0-1.0) back into
// SVG files: a stand-in React.createElement writes markup instead of DOM nodes.
// usage: node svg_from_react.mjs PACKAGE_DIR OUT_DIR   (run by fetch_standard_art.py)
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const [pkgDir, outDir] = process.argv.slice(2);
const attr = (name) => {
  if (name === "className") return "class";
  if (name.startsWith("xlink")) return "xlink:" + name.slice(5).toLowerCase();
  if (name === "xmlnsXlink") return "xmlns:xlink";
  if (name === "viewBox" || name === "preserveAspectRatio" || name === "patternUnits") return name;
  return name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
};
const esc = (v) => String(v).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
class Markup {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}
const createElement = (tag, props, ...children) => {
  const attrs = Object.entries(props || {})
    .filter(([k, v]) => v !== undefined && v !== null && !k.startsWith("aria"))
    .map(([k, v]) => ` ${attr(k === "xmlnsXlink" ? "xmlnsXlink" : k)}="${esc(v)}"`).join("");
  const inner = children.flat().filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Markup ? c.text : esc(c))).join("");
  return new Markup(`<${tag}${attrs}>${inner}</${tag}>`);
};
const work = fs.mkdtempSync(path.join(outDir, ".tmp-"));
let src = fs.readFileSync(path.join(pkgDir, "dist", "index.esm.js"), "utf8");
src = src.replace("import _extends from '@babel/runtime/helpers/extends';", "const _extends = Object.assign;")
  .replace("import * as React from 'react';", "const React = globalThis.__React;");
globalThis.__React = { createElement };
const mod = path.join(work, "cards.mjs");
fs.writeFileSync(mod, src);
const deck = await import(url.pathToFileURL(mod).href);
let n = 0;
for (const [name, component] of Object.entries(deck)) {
  if (typeof component !== "function") continue;
  let svg = component({}).toString();
  if (!svg.includes("xmlns:xlink")) svg = svg.replace("<svg", '<svg xmlns:xlink="http://www.w3.org/1999/xlink"');
  fs.writeFileSync(path.join(outDir, `${name}.svg`), svg);
  n += 1;
}
fs.rmSync(work, { recursive: true });
console.log(`wrote ${n} SVG files to ${outDir}`);
