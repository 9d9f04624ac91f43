"use strict";
// The report's table: groups drawn from the JSON in #data, a page at a
// time, filtered by the breakdowns' buttons and the search box. Every
// string from the data goes through textContent, never markup.
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const PAGE = 100;
  const UNKNOWN = "(unknown)";
  const groups = data.groups.map(function (g, i) {
    let known = 0;
    for (const c of g.c) known += c[3];
    return { g: g, rank: i + 1, count: g.n, rest: g.n - known, hay: null, reason: g.r.length ? g.r[0][0] : "" };
  });
  const filters = { os: null, cpu: null, product: null, module: null };
  const facetNames = { os: "OS", cpu: "CPU", product: "Product", module: "Module" };
  let query = "", sortKey = "rank", sortDir = 1, shown = 0, matched = [], matchedDumps = 0;
  const table = document.getElementById("groups");
  const heads = Array.from(table.tHead.rows[0].cells);
  const status = document.getElementById("status");
  const more = document.getElementById("more");
  const search = document.getElementById("q");
  const clear = document.getElementById("clear");
  const chips = document.getElementById("filters");
  const buttons = Array.from(document.querySelectorAll("#facets button[data-facet]"));

  function plural(n, noun) { return n === 1 ? "1 " + noun : n + " " + noun + "s"; }
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function pct(n, total) { return (100 * n / Math.max(total, 1)).toFixed(1) + "%"; }

  function haystack(x) {
    if (x.hay === null) {
      const parts = [x.g.s];
      for (const r of x.g.r) parts.push(r[0]);
      for (const m of x.g.m) parts.push(m[0]);
      for (const e of x.g.e) parts.push(e[0]);
      const top = x.g.k.length ? data.stacks[x.g.k[0][0]] || [] : [];
      for (const f of top) parts.push(f[1], f[2]);
      x.hay = parts.join("\n").toLowerCase();
    }
    return x.hay;
  }
  function configMatches(os, cpu, product) {
    return (filters.os === null || os === filters.os) && (filters.cpu === null || cpu === filters.cpu) &&
      (filters.product === null || product === filters.product);
  }
  // matchCount is how many of a group's dumps pass the facet filters.
  function matchCount(x) {
    const g = x.g;
    if (filters.module !== null && !g.m.some(function (m) { return m[0] === filters.module; })) return 0;
    if (filters.os === null && filters.cpu === null && filters.product === null) return g.n;
    let n = 0;
    for (const c of g.c) if (configMatches(c[0], c[1], c[2])) n += c[3];
    if (x.rest > 0 && configMatches(UNKNOWN, UNKNOWN, UNKNOWN)) n += x.rest;
    return n;
  }
  function compare(a, b) {
    let c = 0;
    switch (sortKey) {
      case "count": c = a.count - b.count; break;
      case "sig": c = a.g.s < b.g.s ? -1 : a.g.s > b.g.s ? 1 : 0; break;
      case "reason": c = a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0; break;
      default: c = a.rank - b.rank;
    }
    return sortDir * c || a.rank - b.rank;
  }

  function apply() {
    matched = [];
    matchedDumps = 0;
    for (const x of groups) {
      x.count = matchCount(x);
      if (x.count === 0 || (query !== "" && !haystack(x).includes(query))) continue;
      matched.push(x);
      matchedDumps += x.count;
    }
    matched.sort(compare);
    for (const b of Array.from(table.tBodies)) b.remove();
    shown = 0;
    if (matched.length === 0) {
      const body = table.appendChild(el("tbody"));
      const td = body.appendChild(el("tr")).appendChild(el("td", "No signature matches.", "muted"));
      td.colSpan = 5;
    }
    showMore();
    chrome();
  }

  function showMore() {
    const end = Math.min(shown + PAGE, matched.length);
    const frag = document.createDocumentFragment();
    for (; shown < end; shown++) frag.appendChild(groupBody(matched[shown]));
    table.appendChild(frag);
    const left = matched.length - shown;
    more.hidden = left === 0;
    more.textContent = "Show " + Math.min(left, PAGE) + " more (" + left + " left)";
    status.textContent = "Showing " + shown + " of " + plural(matched.length, "signature") + " (" + plural(matchedDumps, "dump") + ")";
    status.dataset.shown = String(shown);
    status.dataset.matched = String(matched.length);
    status.dataset.dumps = String(matchedDumps);
  }

  function groupBody(x) {
    const g = x.g;
    const body = el("tbody", null, "g");
    body.dataset.sig = g.s;
    body.dataset.rank = String(x.rank);
    const row = body.appendChild(el("tr", null, "group"));
    row.tabIndex = 0;
    row.setAttribute("aria-expanded", "false");
    row.appendChild(el("td", x.rank));
    row.appendChild(el("td", x.count === g.n ? String(g.n) : x.count + " of " + g.n));
    const shareCell = row.appendChild(el("td"));
    const bar = shareCell.appendChild(el("span", null, "bar"));
    bar.appendChild(el("span")).style.width = pct(x.count, matchedDumps);
    shareCell.appendChild(document.createTextNode(" " + pct(x.count, matchedDumps)));
    row.appendChild(el("td", g.s, "sig"));
    let reason = x.reason;
    if (g.r.length > 1) reason += " (+" + (g.r.length - 1) + " more)";
    row.appendChild(el("td", reason));
    row.addEventListener("click", function () { toggle(body, x); });
    row.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(body, x); }
    });
    return body;
  }

  function toggle(body, x) {
    const row = body.rows[0];
    let detail = body.rows[1];
    if (!detail) detail = body.appendChild(detailRow(x));
    else detail.hidden = !detail.hidden;
    row.classList.toggle("open", !detail.hidden);
    row.setAttribute("aria-expanded", String(!detail.hidden));
  }

  function framesTable(id) {
    const t = el("table", null, "frames");
    (data.stacks[id] || []).forEach(function (f, n) {
      const tr = t.appendChild(el("tr"));
      tr.appendChild(el("td", n));
      tr.appendChild(el("td", f[0]));
      tr.appendChild(f[1] ? el("td", f[1]) : el("td", "(no function)", "muted"));
      tr.appendChild(el("td", f[2]));
      tr.appendChild(el("td", f[3], "muted"));
    });
    return t;
  }
  function list(items, empty) {
    const ul = el("ul");
    for (const text of items) ul.appendChild(el("li", text));
    if (items.length === 0) ul.appendChild(el("li", empty, "muted"));
    return ul;
  }
  // safeLink accepts the relative links batch writes, never a scheme.
  function safeLink(href) { return href !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith("//"); }

  function detailRow(x) {
    const g = x.g;
    const tr = el("tr", null, "detail");
    const td = tr.appendChild(el("td"));
    td.colSpan = 5;
    g.k.forEach(function (st, i) {
      if (i === 0) {
        const h = td.appendChild(el("h4", "Representative stack "));
        h.appendChild(el("span", st[0] + ", " + plural(st[1], "dump"), "muted"));
        td.appendChild(framesTable(st[0]));
        return;
      }
      if (i === 1) td.appendChild(el("h4", "Other stacks"));
      const d = td.appendChild(el("details"));
      const s = d.appendChild(el("summary"));
      s.appendChild(el("code", st[0]));
      s.appendChild(document.createTextNode(", " + plural(st[1], "dump")));
      d.addEventListener("toggle", function () { if (d.open && d.childElementCount === 1) d.appendChild(framesTable(st[0])); });
    });
    td.appendChild(el("h4", "Crash reasons"));
    td.appendChild(list(g.r.map(function (r) { return r[0] + ": " + plural(r[1], "dump"); }), "none"));
    td.appendChild(el("h4", "Modules in the stacks"));
    td.appendChild(list(g.m.map(function (m) { return m[0] + (m[1] ? " " + m[1] : "") + ": " + plural(m[2], "dump"); }), "none"));
    if (g.c.length) {
      td.appendChild(el("h4", "Systems and products"));
      const t = td.appendChild(el("table", null, "small"));
      for (const c of g.c) {
        const r = t.appendChild(el("tr"));
        for (const v of [c[0], c[1], c[2], plural(c[3], "dump")]) r.appendChild(el("td", v));
      }
    }
    const h = td.appendChild(el("h4", "Dumps "));
    h.appendChild(el("span", "(" + g.e.length + " of " + g.n + ")", "muted"));
    const ul = td.appendChild(el("ul", null, "dumps"));
    for (const e of g.e) {
      const li = ul.appendChild(el("li"));
      li.appendChild(el("code", e[0]));
      if (safeLink(e[1])) {
        li.appendChild(document.createTextNode(" "));
        const a = li.appendChild(el("a", "report"));
        a.setAttribute("href", e[1]);
      }
    }
    return tr;
  }

  // chrome shows the active filters and the buttons' states.
  function chrome() {
    chips.textContent = "";
    let any = query !== "";
    for (const k of Object.keys(filters)) {
      if (filters[k] === null) continue;
      any = true;
      const chip = chips.appendChild(el("span", facetNames[k] + ": " + filters[k]));
      chip.dataset.facet = k;
    }
    clear.hidden = !any;
    for (const b of buttons) b.setAttribute("aria-pressed", String(filters[b.dataset.facet] === b.dataset.value));
  }

  for (const b of buttons) {
    b.addEventListener("click", function () {
      const k = b.dataset.facet;
      filters[k] = filters[k] === b.dataset.value ? null : b.dataset.value;
      apply();
    });
  }
  search.addEventListener("input", function () {
    query = search.value.trim().toLowerCase();
    apply();
  });
  clear.addEventListener("click", function () {
    for (const k of Object.keys(filters)) filters[k] = null;
    search.value = "";
    query = "";
    apply();
  });
  more.addEventListener("click", showMore);
  for (const th of heads) {
    th.addEventListener("click", function () {
      const key = th.dataset.key;
      if (key === sortKey && th.hasAttribute("aria-sort")) sortDir = -sortDir;
      else sortDir = key === "count" ? -1 : 1;
      sortKey = key;
      for (const h of heads) h.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", sortDir === 1 ? "ascending" : "descending");
      apply();
    });
  }
  apply();
})();
