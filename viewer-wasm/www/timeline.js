// The timeline of the open file: one row per thread and depth, the
// worker's layout of the window [t0, t1] drawn on a canvas (slivers too
// thin to draw merged, drawn translucent; a click on one zooms in), an axis,
// and the window's span in the panel's title. Wheel or drag to pan and
// zoom; keys + - 0 and arrows.
import { $ } from './dom.js';
import { state } from './state.js';
import { fmtNs, fmtWindow } from './measure.js';
import { call } from './worker-client.js';
import { selectEvent } from './selection.js';

const canvas = $('timeline');
const ROW_H = 16;
const AXIS_H = 18;
const GUTTER = 110;
const LABEL_PX = 36;
let t0 = 0; let t1 = 1; let layout = null; let selected = null; let selInfo = null;
let inflight = null; let dirty = false;
// The open file's unfinished event (Lean was stopped while running it): { event, row }.
let unfinished = null; let unfinishedOf = null;
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#e15759', '#bab0ac'];
const classColor = new Map();
/** The colour of events of class `name` (the flame graph uses it too). */
export function colorOf(name) {
  if (!classColor.has(name)) {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    classColor.set(name, PALETTE[h % PALETTE.length]);
  }
  return classColor.get(name);
}
function plotWidth() { return Math.max(1, canvas.clientWidth - GUTTER); }
function rows() { return state.fileSummary ? state.fileSummary.timelineRows : []; }
function fitCanvas() {
  const dpr = window.devicePixelRatio || 1;
  const h = AXIS_H + rows().length * ROW_H + 4;
  canvas.style.height = `${h}px`;
  const w = canvas.clientWidth;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  return dpr;
}
async function redraw() {
  if (state.file === null) return 0;
  if (inflight) { dirty = true; return inflight; }
  const start = performance.now();
  inflight = (async () => {
    fitCanvas();
    await findUnfinished();
    layout = await call('timeline', state.file, t0, t1, Math.round(plotWidth()), LABEL_PX);
    draw();
    return performance.now() - start;
  })();
  try {
    return await inflight;
  } finally {
    inflight = null;
    if (dirty) { dirty = false; redraw(); }
  }
}
function draw() {
  const dpr = fitCanvas();
  const ctx = canvas.getContext('2d');
  const style = getComputedStyle(document.body);
  const fg = style.color;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const rs = rows();
  const threads = state.fileSummary.threads;
  // Row labels: one per thread, at its first row.
  ctx.fillStyle = fg;
  rs.forEach((r, i) => {
    if (r.depth === 0) {
      const y = AXIS_H + i * ROW_H;
      ctx.globalAlpha = 0.25;
      ctx.fillRect(0, y, canvas.clientWidth, 1);
      ctx.globalAlpha = 1;
      const t = threads[r.thread];
      ctx.fillText((t ? t.name : `thread ${r.thread}`).slice(0, 16), 4, y + ROW_H / 2);
    }
  });
  axis(ctx, fg);
  if (!layout) return;
  const a = layout.rects;
  const pw = plotWidth();
  // Batch rectangles by colour: one path per colour, and merged
  // slivers (standing for several events) apart, drawn translucent.
  const paths = new Map();
  const colorOfClass = new Map();
  for (let k = 0; k < a.length; k += 6) {
    const cls = a[k + 5];
    let color = colorOfClass.get(cls);
    if (color === undefined) { color = colorOf(layout.classNames[cls] || ''); colorOfClass.set(cls, color); }
    const merged = a[k + 4] > 1;
    const key = merged ? `${color}|1` : color;
    let p = paths.get(key);
    if (!p) { p = { path: new Path2D(), color, merged }; paths.set(key, p); }
    const x0 = Math.max(a[k + 1], 0);
    const w = Math.max(1, Math.min(a[k + 2], pw) - x0 - (merged ? 0 : 0.5));
    p.path.rect(GUTTER + x0, AXIS_H + a[k] * ROW_H + 1, w, ROW_H - 2);
  }
  for (const p of paths.values()) {
    ctx.fillStyle = p.color;
    ctx.globalAlpha = p.merged ? 0.55 : 1;
    ctx.fill(p.path);
  }
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#fff';
  for (let k = 0; k < a.length; k += 6) {
    const label = layout.labels[a[k + 3]];
    if (label === undefined || a[k + 4] !== 1) continue;
    const x0 = Math.max(a[k + 1], 0);
    const w = Math.min(a[k + 2], plotWidth()) - x0;
    if (w < LABEL_PX) continue;
    const chars = Math.floor((w - 6) / 6);
    ctx.fillText(label.length > chars ? `${label.slice(0, Math.max(0, chars - 1))}…` : label, GUTTER + x0 + 3, AXIS_H + a[k] * ROW_H + ROW_H / 2);
  }
  if (unfinished && unfinished.row !== null) drawUnfinished(ctx, fg);
  if (selInfo) {
    const x0 = Math.max(0, (selInfo.startNs - t0) / (t1 - t0) * plotWidth());
    const x1 = Math.min(plotWidth(), (selInfo.endNs - t0) / (t1 - t0) * plotWidth());
    if (x1 >= 0 && x0 <= plotWidth() && selInfo.row !== null) {
      ctx.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#0969da';
      ctx.lineWidth = 2;
      ctx.strokeRect(GUTTER + x0, AXIS_H + selInfo.row * ROW_H, Math.max(2, x1 - x0), ROW_H);
    }
  }
}
/** The unfinished event: hatched, its right edge dashed (it had no end), and said so. */
function drawUnfinished(ctx, fg) {
  const u = unfinished;
  const pw = plotWidth();
  const x0 = Math.max(0, (u.startNs - t0) / (t1 - t0) * pw);
  const x1 = Math.min(pw, (u.endNs - t0) / (t1 - t0) * pw);
  if (x1 < 0 || x0 > pw) return;
  const y = AXIS_H + u.row * ROW_H + 1;
  ctx.save();
  ctx.beginPath(); ctx.rect(GUTTER + x0, y, Math.max(2, x1 - x0), ROW_H - 2); ctx.clip();
  ctx.strokeStyle = '#fff'; ctx.globalAlpha = 0.5;
  for (let x = GUTTER + x0 - ROW_H; x < GUTTER + x1; x += 6) { ctx.beginPath(); ctx.moveTo(x, y + ROW_H); ctx.lineTo(x + ROW_H, y); ctx.stroke(); }
  ctx.restore();
  ctx.save();
  ctx.strokeStyle = fg; ctx.setLineDash([3, 3]);
  ctx.beginPath(); ctx.moveTo(GUTTER + x1, y - 1); ctx.lineTo(GUTTER + x1, y + ROW_H - 1); ctx.stroke();
  ctx.restore();
  if (x1 - x0 > 80) { ctx.fillStyle = fg; ctx.fillText('unfinished', GUTTER + Math.max(x0, x1 - 80), y - 6 + ROW_H / 2 + 6); }
}
/** Looks up the open file's unfinished event (its row), once per file. */
async function findUnfinished() {
  const fs = state.fileSummary;
  if (unfinishedOf === fs) return;
  unfinishedOf = fs;
  unfinished = null;
  const f = fs && fs.stop && fs.stop.inFlight;
  if (!f || f.event === null || f.event === undefined) return;
  const v = await call('event', state.file, f.event);
  unfinished = { event: f.event, startNs: v.startNs, endNs: v.endNs, row: v.timelineRow };
}
function axis(ctx, fg) {
  const span = t1 - t0;
  const w = plotWidth();
  const target = span / Math.max(1, w / 100);
  const pow = 10 ** Math.floor(Math.log10(target));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= target) || pow * 10;
  ctx.fillStyle = fg;
  ctx.globalAlpha = 0.7;
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const x = GUTTER + (t - t0) / span * w;
    ctx.fillRect(x, AXIS_H - 4, 1, 4);
    ctx.fillText(fmtNs(Math.round(t)), x + 2, AXIS_H / 2);
  }
  ctx.globalAlpha = 1;
  // Written only when it changed: a changed text makes the next
  // redraw's reads of sizes and styles lay out the whole page again.
  const shown = fmtWindow(t0, t1);
  const windowText = $('timeline-window');
  if (windowText.textContent !== shown) windowText.textContent = shown;
}
function setWindow(a, b) {
  const fs = state.fileSummary;
  const full = Math.max(1, fs.windowEndNs - fs.windowStartNs);
  let span = Math.min(Math.max(b - a, 1000), full * 1.05);
  let start = a;
  if (span === full * 1.05) start = fs.windowStartNs - full * 0.025;
  start = Math.max(fs.windowStartNs - full * 0.025, Math.min(start, fs.windowEndNs + full * 0.025 - span));
  t0 = start; t1 = start + span;
  redraw();
}
function zoom(factor, atX) {
  const frac = atX === undefined ? 0.5 : Math.min(1, Math.max(0, (atX - GUTTER) / plotWidth()));
  const at = t0 + (t1 - t0) * frac;
  const span = (t1 - t0) * factor;
  setWindow(at - span * frac, at - span * frac + span);
}
function pan(frac) { const s = t1 - t0; setWindow(t0 + s * frac, t1 + s * frac); }

/** The mouse, the keys and the buttons of the timeline. */
export function initTimeline() {
  canvas.addEventListener('wheel', (e) => {
    if (state.file === null) return;
    e.preventDefault();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / 1000);
    else zoom(1.25 ** (e.deltaY / 100), e.offsetX);
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, t0, t1, moved: false }; });
  window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
  canvas.addEventListener('mousemove', (e) => {
    if (!drag || !(e.buttons & 1)) return;
    const dx = e.offsetX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (drag.moved) {
      const s = drag.t1 - drag.t0;
      setWindow(drag.t0 - dx / plotWidth() * s, drag.t1 - dx / plotWidth() * s);
    }
  });
  canvas.addEventListener('click', async (e) => {
    if (state.file === null || (drag && drag.moved)) return;
    const row = Math.floor((e.offsetY - AXIS_H) / ROW_H);
    const x = e.offsetX - GUTTER;
    if (row < 0 || row >= rows().length || x < 0) return;
    const t = t0 + x / plotWidth() * (t1 - t0);
    const hit = await call('eventAt', state.file, row, t);
    if (hit >= 0) { await selectEvent(hit, true); return; }
    // A merged sliver: zoom into it.
    const a = layout ? layout.rects : [];
    for (let k = 0; k < a.length; k += 6) {
      if (a[k] === row && a[k + 1] <= x && x <= a[k + 2] && a[k + 4] > 1) { zoom(0.1, e.offsetX); return; }
    }
  });
  canvas.addEventListener('keydown', (e) => {
    if (e.key === '+' || e.key === '=') zoom(1 / 1.5);
    else if (e.key === '-') zoom(1.5);
    else if (e.key === '0') reset();
    else if (e.key === 'ArrowLeft') pan(-0.1);
    else if (e.key === 'ArrowRight') pan(0.1);
    else return;
    e.preventDefault();
  });
  $('tl-zoom-in').addEventListener('click', () => zoom(1 / 1.5));
  $('tl-zoom-out').addEventListener('click', () => zoom(1.5));
  $('tl-reset').addEventListener('click', () => reset());
  window.addEventListener('resize', () => redraw());
}

/** Shows the whole file, nothing selected; resolves with the draw's time
 *  in ms (null without a file). */
function reset() {
  selected = null; selInfo = null;
  const fs = state.fileSummary;
  if (!fs) return null;
  const full = Math.max(1, fs.windowEndNs - fs.windowStartNs);
  t0 = fs.windowStartNs - full * 0.025; t1 = fs.windowEndNs + full * 0.025;
  return redraw();
}
/** Marks event `i` (null: none). */
async function select(i) {
  selected = i;
  if (i === null || i === undefined) { selInfo = null; draw(); return; }
  const v = await call('event', state.file, i);
  selInfo = { startNs: v.startNs, endNs: v.endNs, row: v.timelineRow };
  draw();
}
/** Marks event `i` and brings [start, end] into the window (fitted to it
 *  when `fit`, else only when it is not visible already). */
async function show(start, end, i, fit) {
  const visible = !fit && start >= t0 && end <= t1 && (end - start) / (t1 - t0) * plotWidth() >= 3;
  await select(i);
  if (!visible) {
    const pad = Math.max((end - start) * 0.15, 1000);
    setWindow(start - pad, end + pad);
  }
}

/** The timeline as the other modules and the tests see it: reset (the
 *  whole file), redraw, select and show an event, and its window, layout
 *  and selected event. */
export const timeline = {
  reset, redraw, select, show,
  get window() { return [t0, t1]; },
  get layout() { return layout; },
  get selected() { return selected; },
  get unfinished() { return unfinished; },
};
