// Where a recorded line is in the edited buffer, and whether it changed:
// the recorded text and the buffer compared by their common first and last
// lines. Every line between the first and the last difference counts as
// changed (several edits far apart mark the lines between them too).

/** The recorded lines against the buffer's. */
export interface LineMap {
  /** The buffer line a recorded line is on now, or undefined when it was removed. */
  at(recorded: number): number | undefined;
  /** Whether a recorded line was edited (or lies between edits). */
  changed(recorded: number): boolean;
  /** Whether any of recorded lines `first`…`last` changed, or lines were
   * inserted inside them. */
  rangeChanged(first: number, last: number): boolean;
}

/** The lines of a text as VS Code counts them (`\r\n` or `\n`). */
export function splitLines(text: string): string[] { return text.split(/\r\n|\n/); }

/** The map from `recorded` to `current` (both as lines). */
export function mapLines(recorded: string[], current: string[]): LineMap {
  const n = recorded.length;
  const m = current.length;
  let head = 0;
  while (head < n && head < m && recorded[head] === current[head]) head++;
  let tail = 0;
  while (tail < n - head && tail < m - head && recorded[n - 1 - tail] === current[m - 1 - tail]) tail++;
  const oldEnd = n - tail; // recorded lines head…oldEnd-1 changed
  const newEnd = m - tail;
  const same = head === n && head === m;
  return {
    at(line) {
      if (line < head) return line;
      if (line >= oldEnd) return line + (m - n);
      const moved = head + (line - head);
      return moved < newEnd ? moved : undefined;
    },
    changed(line) { return !same && line >= head && line < oldEnd; },
    rangeChanged(first, last) {
      if (same) return false;
      if (oldEnd > head) return first < oldEnd && last >= head;
      // Only insertions, before recorded line `head`: inside the range when
      // it starts before them and goes on after.
      return first < head && last >= head;
    },
  };
}
