// How leanscope writes a time (nanoseconds), a heartbeat count or, for an
// untimed trace (printed without trace.profiler), a count of trace nodes for
// people. The rule is recording::Measure::format_in_unit_of
// (recording/src/measure.rs); this is its twin for the viewer and the VS Code
// extension, and fixtures/format/values.json pins both to the same text for
// the same number (tests/browser/time-format.test.mjs, recording/tests/format.rs).

const TIME_UNITS = [[1e9, 's', 3], [1e6, 'ms', 1], [1e3, 'µs', 0]];
const HB_UNITS = [[1e12, 'T hb'], [1e9, 'G hb'], [1e6, 'M hb'], [1e3, 'k hb']];

/** `value / unit` with `decimals` decimals, rounded half away from zero in
 *  integers (BigInt past 2^53); no sign on a zero. */
function fixed(value, unit, decimals) {
  const pow = 10 ** decimals;
  const abs = Math.abs(value);
  let q;
  if (abs * pow <= Number.MAX_SAFE_INTEGER) {
    q = Math.floor((abs * pow + Math.floor(unit / 2)) / unit);
  } else {
    q = Number((BigInt(abs) * BigInt(pow) + BigInt(unit / 2)) / BigInt(unit));
  }
  const sign = value < 0 && q !== 0 ? '-' : '';
  if (decimals === 0) return `${sign}${q}`;
  const whole = Math.floor(q / pow);
  const frac = String(q - whole * pow).padStart(decimals, '0');
  return `${sign}${whole}.${frac}`;
}

/**
 * A time or a heartbeat count for people: `1.234 s`, `12.3 ms`, `850 µs`,
 * `12 ns`; `12.4 k hb`, `3.21 M hb`, `850 hb`; `1 node`, `12 nodes` (an
 * untimed recording: whole counts whatever the scale). `scale` (a magnitude, by
 * default the value's own) picks the unit, so that values shown together
 * share one (`0.310 s` beside `1.240 s`).
 * @param {number} value nanoseconds or heartbeats (rounded to a whole number)
 * @param {'time'|'heartbeats'|'untimed'} [measure]
 * @param {number} [scale]
 * @returns {string}
 */
export function formatValue(value, measure = 'time', scale = undefined) {
  const v = Math.round(value) + 0; // no -0
  const m = Math.abs(scale === undefined ? v : scale);
  if (measure === 'untimed') return `${v} node${Math.abs(v) === 1 ? '' : 's'}`;
  if (measure === 'heartbeats') {
    for (const [unit, name] of HB_UNITS) {
      if (m >= unit) {
        const a = Math.abs(v);
        const decimals = a >= 100 * unit ? 0 : a >= 10 * unit ? 1 : 2;
        return `${fixed(v, unit, decimals)} ${name}`;
      }
    }
    return `${v} hb`;
  }
  for (const [unit, name, decimals] of TIME_UNITS) {
    if (m >= unit) return `${fixed(v, unit, decimals)} ${name}`;
  }
  return `${v} ns`;
}

// Other numbers the viewer writes.

/**
 * How many runs a time is over: `4 runs`, `1 run`, or `2 of 4 runs` for a
 * time only some of the capture's `of` runs have.
 * @param {number} runs
 * @param {number} [of]
 * @returns {string}
 */
export function formatRunCount(runs, of = undefined) {
  const n = of !== undefined && runs < of ? `${runs} of ${of}` : `${runs}`;
  return `${n} run${(of ?? runs) === 1 ? '' : 's'}`;
}

/**
 * A value over the runs of a repeated capture: `median of 4 runs · min–max
 * 10.0 ms–50.0 ms · IQR 17.5 ms–35.0 ms` (the IQR from four runs), every
 * value in the unit of the largest. The viewer and the editor both write
 * spreads with it.
 * @param {{runs: number, min: number, max: number, q1?: number|null, q3?: number|null}} sp
 * @param {'time'|'heartbeats'|'untimed'} [measure]
 * @param {number} [of] the runs of the capture, when the value is in fewer
 * @returns {string}
 */
export function formatSpread(sp, measure = 'time', of = undefined) {
  const v = (x) => formatValue(x, measure, sp.max);
  const parts = [`median of ${formatRunCount(sp.runs, of)}`, `min–max ${v(sp.min)}–${v(sp.max)}`];
  if (typeof sp.q1 === 'number' && typeof sp.q3 === 'number') parts.push(`IQR ${v(sp.q1)}–${v(sp.q3)}`);
  return parts.join(' · ');
}

/**
 * A count with thousands separators: `1,234,567`. Not toLocaleString: its
 * first call loads the browser's number formatting, tens of milliseconds of
 * the page's main thread while a load's progress is shown.
 * @param {number} n
 * @returns {string}
 */
/** Bytes in mebibytes, as `recording::memory::format_bytes` writes them: `300 MiB` from
 * 100 MiB up, else one decimal (`12.5 MiB`). */
export function formatBytes(bytes) {
  const mib = bytes / 1048576;
  return mib >= 100 ? `${mib.toFixed(0)} MiB` : `${mib.toFixed(1)} MiB`;
}

export function formatCount(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A count with its noun, singular for one: `1 call`, `1,204 calls`, `1 file`.
 * @param {number} n
 * @param {string} one
 * @param {string} [many]
 * @returns {string}
 */
export function formatCountOf(n, one, many = `${one}s`) {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * A share (0.123) as a percentage with one decimal (`12.3%`); `—` for none.
 * @param {number|null|undefined} share
 * @returns {string}
 */
export function formatPercent(share) {
  return share === null || share === undefined ? '—' : `${(share * 100).toFixed(1)}%`;
}

/**
 * A source range (0-based lines and columns) as people count them:
 * `3:1–7:12`; `no range` for none.
 * @param {{startLine: number, startCol: number, endLine: number, endCol: number}|null|undefined} r
 * @returns {string}
 */
export function formatRange(r) {
  return r ? `${r.startLine + 1}:${r.startCol + 1}–${r.endLine + 1}:${r.endCol + 1}` : 'no range';
}
