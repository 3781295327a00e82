// Small helpers shared by the table page's scripts (table.js, rulings.js, zones.js): loaded before them.
"use strict";

window.tableref = {
  $: (id) => document.getElementById(id),
  el: (tag, props, ...children) => {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children) node.append(child);
    return node;
  },
  // A card id in words ("Blue 5" with its colour symbol), from the page's card-words table.
  cardWords: (words, id) => (id ? words.cards[id] || id : "—"),
};
