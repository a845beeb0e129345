// Small helpers to build the page: find an element, make one, and a long
// list of rows of which only those in view are in the DOM.

/** The element with this id. */
export function $(id) {
  return document.getElementById(id);
}

/** A new `tag` element: `props` sets its class, text, `on…` listeners,
 *  dataset, style (through the CSSOM: the CSP allows no inline style
 *  attributes) and other attributes (null and undefined are skipped);
 *  `kids` (elements or text) are appended. */
export function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  if (props) for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'style') e.style.cssText = v;
    else e.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

/** A list of fixed-height rows of which only those in view (and a few
 *  around) are in the DOM; its scrolling parent scrolls it. */
export function virtualRows(items, make, rowH) {
  const box = el('div', { class: 'virtual', style: `height:${items.length * rowH}px` });
  let shown = '';
  function update() {
    const scroller = box.parentElement;
    const view = scroller ? scroller.clientHeight || 120 : 120;
    const top = scroller ? Math.max(0, scroller.scrollTop - box.offsetTop) : 0;
    const from = Math.max(0, Math.floor(top / rowH) - 5);
    const to = Math.min(items.length, Math.ceil((top + view) / rowH) + 5);
    if (shown === `${from}:${to}`) return;
    shown = `${from}:${to}`;
    const rows = [];
    for (let i = from; i < to; i++) {
      const r = make(items[i]);
      r.style.top = `${i * rowH}px`;
      rows.push(r);
    }
    box.replaceChildren(...rows);
  }
  update();
  requestAnimationFrame(() => {
    update();
    if (box.parentElement) box.parentElement.addEventListener('scroll', update, { passive: true });
  });
  return box;
}
