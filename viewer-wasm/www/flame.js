// The flame graph: the timeline panel's other mode. It draws the merged
// call tree by kind of work (recording::hotspots' tree: a node per path of
// keys, children widest first, each as wide as its share of its parent's
// total) on a canvas, coloured by class like the timeline, with the class
// filter of the Hot spots tab applied. For the open file it is the file's
// tree; with no file open, the folder's files merged by the worker one
// recording at a time (with progress; capped, the cap said). Hover: the
// node's key, total, self, calls and share of all; click: zoom into it;
// back and all (Backspace, 0) zoom out.
import { $ } from './dom.js';
import { state, debug } from './state.js';
import { formatCount, formatCountOf, formatPercent } from './format.js';
import { fmtNs } from './measure.js';
import { call } from './worker-client.js';
import { showBanner } from './banner.js';
import { colorOf, timeline } from './timeline.js';
import { writeHash } from './links.js';

const canvas = $('flame');
const tip = $('flame-tip');
const ROW_H = 17;
/** Nodes narrower than this many pixels at the zoom are not asked for. */
const MIN_PX = 0.5;

/** What is drawn: the worker's answer, laid out: per node its depth and
 *  x range in [0, 1] of the zoomed node. */
let graph = null;
/** The zoom: the node drawn full width, and the nodes zoomed from. */
let at = 0; let zoomStack = [];
/** Which scope the graph is of ('file:K' or 'folder:PATH') and class. */
let shownFor = null;
let hovered = -1;
/** The merged folder the worker holds, if any. */
let mergedUnder = null;

/** The hot-spot scope: the open file's number, or -1 (the merged folder). */
function scope() {
  const file = state.scopeFile || (state.summary && state.summary.single);
  return file && state.file !== null ? state.file : -1;
}

function scopeName() {
  if (scope() >= 0) return `file:${state.file}`;
  return `folder:${state.folder ? state.folder.node.path : ''}`;
}

/** Switches the timeline panel between 'timeline' and 'flame'. */
export async function setPanelMode(mode) {
  state.panelMode = mode === 'flame' ? 'flame' : 'timeline';
  const flame = state.panelMode === 'flame';
  $('tl-mode-timeline').setAttribute('aria-pressed', String(!flame));
  $('tl-mode-flame').setAttribute('aria-pressed', String(flame));
  $('timeline-wrap').hidden = flame;
  $('timeline-tools').hidden = flame;
  $('flame-wrap').hidden = !flame;
  $('flame-tools').hidden = !flame;
  writeHash();
  if (flame) return refreshFlame();
  return timeline.redraw();
}

/** Draws the flame graph of what is open now (asked again when the file,
 *  the folder or the class changed); resolves with its draw's time. */
export async function refreshFlame() {
  if (state.panelMode !== 'flame') return null;
  const want = `${scopeName()}|${state.hotClass}`;
  if (want !== shownFor) {
    at = 0;
    zoomStack = [];
  }
  return load(want);
}

async function load(want) {
  const t0 = performance.now();
  try {
    if (scope() < 0) {
      if (!state.summary || state.summary.single) return null;
      const under = state.folder ? state.folder.node.path : '';
      if (mergedUnder !== under) {
        mergedUnder = null;
        const m = await call('mergeFolder', under);
        mergedUnder = under;
        debug.flameMerge = m;
        if (m.skipped > 0) {
          showBanner(`Flame graph of ${under || 'the session'}: the ${m.files} largest of ${m.of} files merged (at most ${m.maxFiles} files and ${formatCount(m.maxEvents)} events); open a file or a smaller folder for the rest.`, false);
        } else showBanner('', false);
      }
    }
    const width = Math.max(100, canvas.clientWidth || 800);
    const g = await call('flame', scope(), state.hotClass, at, MIN_PX / width);
    layout(g);
    shownFor = want;
    debug.flameLoadMs = performance.now() - t0;
    return draw();
  } catch (e) {
    showBanner(`Cannot draw the flame graph: ${e.message}`, true);
    return null;
  }
}

/** Each node's depth and x range: the first node (the zoom) is [0, 1]; a
 *  node's children follow each other from its left edge, each its share
 *  of its parent's total wide. */
function layout(g) {
  const a = g.nodes;
  const n = a.length / 6;
  const x0 = new Float64Array(n); const x1 = new Float64Array(n);
  const depth = new Uint16Array(n); const next = new Float64Array(n);
  let maxDepth = 0;
  for (let i = 0; i < n; i++) {
    const parent = a[i * 6];
    const total = a[i * 6 + 3];
    if (parent < 0) { x0[i] = 0; x1[i] = 1; next[i] = 0; continue; }
    const pTotal = a[parent * 6 + 3];
    const w = pTotal > 0 ? (x1[parent] - x0[parent]) * (total / pTotal) : 0;
    x0[i] = x0[parent] + next[parent];
    x1[i] = x0[i] + w;
    next[parent] += w;
    next[i] = 0;
    depth[i] = depth[parent] + 1;
    if (depth[i] > maxDepth) maxDepth = depth[i];
  }
  graph = { ...g, n, x0, x1, depth, maxDepth };
  hovered = -1;
  tip.hidden = true;
  const path = g.path.map((p) => p.label).join(' › ');
  $('flame-path').textContent = at === 0 ? `all ${fmtNs(g.allNs)}` : `${path} (${formatPercent(g.allNs ? g.nodes[3] / g.allNs : 0)} of all)`;
  $('fl-back').disabled = zoomStack.length === 0;
}

function fit() {
  const dpr = window.devicePixelRatio || 1;
  const h = ((graph ? graph.maxDepth : 0) + 1) * ROW_H + 4;
  canvas.style.height = `${h}px`;
  const w = canvas.clientWidth;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  return dpr;
}

/** Draws the laid-out graph; returns the time it took (ms). */
function draw() {
  const start = performance.now();
  const dpr = fit();
  const ctx = canvas.getContext('2d');
  const W = canvas.clientWidth;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, canvas.clientHeight);
  if (!graph) return 0;
  const style = getComputedStyle(document.body);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const { nodes, keys, n, x0, x1, depth } = graph;
  // One path per colour; the virtual root (all work) in the text colour.
  const paths = new Map();
  const labelled = [];
  for (let i = 0; i < n; i++) {
    const px0 = x0[i] * W; const px1 = x1[i] * W;
    if (px1 - px0 < MIN_PX) continue;
    const key = keys[nodes[i * 6 + 2]];
    const isRoot = nodes[i * 6 + 1] === 0;
    const color = isRoot ? style.color : colorOf(key ? key[0] : '');
    let p = paths.get(color);
    if (!p) { p = new Path2D(); paths.set(color, p); }
    p.rect(px0, depth[i] * ROW_H + 1, Math.max(0.5, px1 - px0 - 0.5), ROW_H - 2);
    if (px1 - px0 > 30) labelled.push(i);
  }
  for (const [color, p] of paths) {
    ctx.fillStyle = color;
    ctx.globalAlpha = color === style.color ? 0.35 : 1;
    ctx.fill(p);
  }
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#fff';
  for (const i of labelled) {
    const w = (x1[i] - x0[i]) * W;
    const label = nodes[i * 6 + 1] === 0 ? 'all' : (keys[nodes[i * 6 + 2]] || ['', ''])[1];
    const chars = Math.floor((w - 6) / 6);
    ctx.fillText(label.length > chars ? `${label.slice(0, Math.max(0, chars - 1))}…` : label, x0[i] * W + 3, depth[i] * ROW_H + ROW_H / 2);
  }
  if (hovered >= 0) {
    ctx.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#0969da';
    ctx.lineWidth = 2;
    ctx.strokeRect(x0[hovered] * W, depth[hovered] * ROW_H, Math.max(2, (x1[hovered] - x0[hovered]) * W), ROW_H);
  }
  const ms = performance.now() - start;
  debug.flameDraws.push(ms);
  if (debug.flameDraws.length > 50) debug.flameDraws.shift();
  return ms;
}

/** The node under (x, y) in CSS pixels, or -1. */
function nodeAt(x, y) {
  if (!graph) return -1;
  const d = Math.floor(y / ROW_H);
  const f = x / Math.max(1, canvas.clientWidth);
  for (let i = 0; i < graph.n; i++) {
    if (graph.depth[i] === d && graph.x0[i] <= f && f < graph.x1[i]) return i;
  }
  return -1;
}

/** What the tooltip says of node `i`. */
function tipText(i) {
  const a = graph.nodes;
  const key = graph.keys[a[i * 6 + 2]];
  const label = a[i * 6 + 1] === 0 ? 'all work' : (key ? key[1] : '');
  const total = a[i * 6 + 3];
  return `${label}\ntotal ${fmtNs(total)} · self ${fmtNs(a[i * 6 + 4])} · ${formatCountOf(a[i * 6 + 5], 'call')} · ${formatPercent(graph.allNs ? total / graph.allNs : 0)} of all`;
}

function hover(i, x, y) {
  if (i === hovered) return;
  hovered = i;
  draw();
  if (i < 0) { tip.hidden = true; return; }
  tip.textContent = tipText(i);
  tip.dataset.node = graph.nodes[i * 6 + 1];
  tip.hidden = false;
  tip.style.left = `${Math.min(x + 12, canvas.clientWidth - 260)}px`;
  tip.style.top = `${y + 14}px`;
}

/** Zooms into node `i` of the drawing (its own tree node). */
function zoomInto(i) {
  const id = graph.nodes[i * 6 + 1];
  if (id === at) return null;
  zoomStack.push(at);
  at = id;
  return load(shownFor);
}

function back() {
  if (!zoomStack.length) return null;
  at = zoomStack.pop();
  return load(shownFor);
}

function reset() {
  zoomStack = [];
  at = 0;
  return load(shownFor);
}

/** The mode buttons, the mouse and the keys of the flame graph. */
export function initFlame() {
  $('tl-mode-timeline').addEventListener('click', () => setPanelMode('timeline'));
  $('tl-mode-flame').addEventListener('click', () => setPanelMode('flame'));
  $('fl-back').addEventListener('click', () => back());
  $('fl-reset').addEventListener('click', () => reset());
  canvas.addEventListener('mousemove', (e) => hover(nodeAt(e.offsetX, e.offsetY), e.offsetX, e.offsetY));
  canvas.addEventListener('mouseleave', () => hover(-1));
  canvas.addEventListener('click', (e) => {
    const i = nodeAt(e.offsetX, e.offsetY);
    if (i >= 0) zoomInto(i);
  });
  canvas.addEventListener('keydown', (e) => {
    if (e.key === 'Backspace' || e.key === '-') back();
    else if (e.key === '0') reset();
    else return;
    e.preventDefault();
  });
  window.addEventListener('resize', () => { if (state.panelMode === 'flame') draw(); });
}

/** The flame graph as the tests and benchmarks see it. */
export const flame = {
  refresh: refreshFlame, draw, back, reset,
  zoomInto: (i) => zoomInto(i),
  hoverAt: (x, y) => { hover(nodeAt(x, y), x, y); return hovered; },
  get graph() { return graph; },
  get at() { return at; },
};
debug.flameDraws = [];
