// Counting a comparison's rows, as Compare with Baseline and Compare
// Revisions report them.
import { CompareResult } from './protocol';

export interface CompareCounts { regressions: number; improvements: number; unchanged: number; new: number; missing: number }

/** Counts of a comparison's rows by status. */
export function compareCounts(result: CompareResult): CompareCounts {
  const c = result.comparison;
  const counts: CompareCounts = { regressions: 0, improvements: 0, unchanged: 0, new: c.new.length, missing: c.missing.length };
  for (const m of c.matched) {
    if (m.status === 'regression') counts.regressions++;
    else if (m.status === 'improvement') counts.improvements++;
    else counts.unchanged++;
  }
  return counts;
}

/** `3 regressions, 1 improvement, 0 new, 2 missing (metric total_ns)`. */
export function compareSummary(counts: CompareCounts, metric: string): string {
  const n = (k: number, one: string, many: string): string => `${k} ${k === 1 ? one : many}`;
  return `${n(counts.regressions, 'regression', 'regressions')}, ${n(counts.improvements, 'improvement', 'improvements')}, `
    + `${counts.new} new, ${counts.missing} missing (metric ${metric})`;
}
