// The memory lane of the open file, under the timeline: the resident memory of Lean's
// process tree as the capture sampled it (the recording's counter track), on its own clock
// (wall time since Lean started: the events' clock may be laid out, not measured), the
// command Lean was running at each point (from when Lean reported it), and the peak.
// Hovering a point says the value and the command running.
import { $ } from './dom.js';
import { state } from './state.js';
import { formatBytes, formatRunCount, formatValue } from './format.js';

const wrap = $('memory-wrap');
const canvas = $('memory-lane');
const tip = $('memory-tip');
const H = 56;
const GUTTER = 110;
let shown = null;

function wall(ns) { return formatValue(ns, 'time'); }
function plotWidth() { return Math.max(1, canvas.clientWidth - GUTTER); }
function xOf(t) { return GUTTER + (shown.endNs > 0 ? t / shown.endNs : 0) * plotWidth(); }
function yOf(b) { return H - 4 - (shown.peakBytes > 0 ? b / shown.peakBytes : 0) * (H - 14); }

/** Shows the open file's memory lane (hidden when its capture sampled no memory). */
export function renderMemory() {
  const m = state.fileSummary ? state.fileSummary.memory : null;
  shown = m || null;
  wrap.hidden = !shown;
  tip.hidden = true;
  if (!shown) return;
  const runs = state.fileSummary.runs;
  const over = runs && runs.memoryPeak
    ? `; over the ${formatRunCount(runs.memoryPeak.runs, runs.runs)} that sampled it, peak ${formatBytes(runs.memoryPeak.median)} (median; min–max ${formatBytes(runs.memoryPeak.min)}–${formatBytes(runs.memoryPeak.max)}); the lane is run ${runs.shownRepeat + 1}'s, the median run`
    : '';
  $('memory-title').textContent = `Resident memory of Lean's processes (wall clock since Lean started): peak ${formatBytes(shown.peakBytes)} at ${wall(shown.peakAtNs)}; ${shown.samples} samples, every ${wall(shown.intervalNs)}${over}`;
  draw();
}

function draw() {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.height = `${H}px`;
  const w = canvas.clientWidth;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, H);
  const fg = getComputedStyle(document.body).color;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = fg;
  ctx.fillText('memory', 4, H / 2);
  // The command in flight when Lean was stopped: its stretch, hatched.
  for (const c of shown.commands) {
    if (!c.open) continue;
    const x0 = xOf(c.startNs); const x1 = Math.max(x0 + 2, xOf(c.endNs));
    ctx.save();
    ctx.beginPath(); ctx.rect(x0, 0, x1 - x0, H); ctx.clip();
    ctx.strokeStyle = fg; ctx.globalAlpha = 0.25;
    for (let x = x0 - H; x < x1; x += 6) { ctx.beginPath(); ctx.moveTo(x, H); ctx.lineTo(x + H, 0); ctx.stroke(); }
    ctx.restore();
  }
  const pts = shown.points;
  if (pts.length) {
    const area = new Path2D();
    area.moveTo(xOf(pts[0][0]), H - 4);
    let y = yOf(pts[0][1]);
    for (const [t, b] of pts) { const x = xOf(t); area.lineTo(x, y); y = yOf(b); area.lineTo(x, y); }
    area.lineTo(xOf(pts[pts.length - 1][0]), H - 4);
    area.closePath();
    ctx.fillStyle = '#76b7b2';
    ctx.globalAlpha = 0.6;
    ctx.fill(area);
    ctx.globalAlpha = 1;
  }
  ctx.fillStyle = fg;
  ctx.fillText(formatBytes(shown.peakBytes), GUTTER + 4, 8);
}

/** What the lane says at `x` (pixels from the canvas's left): the value there and the
 *  command running then; null left of the plot or without a lane. */
function hoverAt(x) {
  if (!shown || x < GUTTER || !shown.points.length) return null;
  const t = (x - GUTTER) / plotWidth() * shown.endNs;
  let p = shown.points[0];
  for (const q of shown.points) { if (q[0] <= t) p = q; else break; }
  const running = shown.commands.filter((c) => c.startNs <= t && t <= c.endNs).sort((a, b) => b.startNs - a.startNs)[0];
  const what = running
    ? `running ${running.label}${running.open ? ' (unfinished: Lean was stopped)' : ''}, which grew it by ${formatBytes(running.growthBytes)}`
    : 'between the commands Lean reported';
  return { t, bytes: p[1], text: `${formatBytes(p[1])} at ${wall(t)}: ${what}` };
}

/** The lane's mouse: a tooltip with the value and the command running. */
export function initMemory() {
  canvas.addEventListener('mousemove', (e) => {
    const h = hoverAt(e.offsetX);
    if (!h) { tip.hidden = true; return; }
    tip.textContent = h.text;
    tip.hidden = false;
    tip.style.left = `${Math.min(e.offsetX + 12, Math.max(0, canvas.clientWidth - 360))}px`;
    tip.style.top = `${Math.max(0, e.offsetY - 28)}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  window.addEventListener('resize', () => { if (shown) draw(); });
}

/** The lane as the tests see it. */
export const memoryLane = {
  hoverAt,
  get shown() { return shown; },
  get tip() { return tip.hidden ? null : tip.textContent; },
};
