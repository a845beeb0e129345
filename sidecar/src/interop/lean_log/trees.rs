//! The events of a trace tree, of a JSON message or collected from text: laid out from the
//! cursor, under the event of the position printed with them, in the measure asked for, and
//! placed on the declaration a root names when `--source` is given and nothing else places it.
//! While the input has shown no time, each event is also laid out in counts of trace nodes (its
//! duration: the nodes of its subtree), the layout of an untimed trace.

use recording::{RangeKind, SourceRange};

use super::block::Block;
use super::measure;
use super::Importer;
use crate::capture::declarations::{declaration_named_by, public_name};
use crate::capture::lean_output::prefixes::TextPosition;
use crate::capture::lean_output::siblings::SubtreeEnd;
use crate::capture::lean_output::trace_text::{parse_trace_text, TraceForest};
use crate::interop::error::Result;
use crate::interop::sink::SinkEvent;

impl Importer<'_, '_> {
    pub(super) fn trace_block(&mut self, b: &Block) -> Result<()> {
        match parse_trace_text(&b.text) {
            Ok(forest) => {
                let range = b.position.as_ref().and_then(|p| self.text_range(p));
                self.forest(&forest, b.first_line, range, b.position.as_ref())?;
            }
            Err(e) => self.bad_traces.add(
                b.first_line,
                format!("the trace tree starting here (its lines counted from 1): {e}"),
            ),
        }
        Ok(())
    }

    /// The trees of a trace (its first line is input line `first_line`), each root at the
    /// cursor, children laid out from their parent's start; the roots take `range` and their
    /// descendants inherit it. With a printed `position` the roots are children of one event
    /// there.
    pub(super) fn forest(
        &mut self,
        forest: &TraceForest,
        first_line: u64,
        range: Option<(SourceRange, RangeKind)>,
        position: Option<&TextPosition>,
    ) -> Result<()> {
        let roots: Vec<usize> = forest.roots().collect();
        let mut ends: Vec<usize> = roots.iter().skip(1).copied().collect();
        ends.push(forest.len());
        let mut total = 0u64;
        if forest.nodes().iter().any(|n| n.timing.is_some()) {
            // a timed tree: the input is not an untimed trace
            self.sink.stop_counting_nodes();
        }
        for (&root, &end) in roots.iter().zip(&ends) {
            if let Some((line, why)) = measure::contradiction(self.measure, forest, root, end) {
                self.measure_warnings
                    .add(first_line + u64::from(line) - 1, why);
            }
            let value = forest.node(root).and_then(|n| n.timing);
            total = total.saturating_add(value.map_or(0, |t| measure::value(self.measure, t)));
        }
        let (parent, range) = match position {
            Some(pos) => {
                let p = self.position_event(pos, total, range)?;
                self.sink
                    .lay_out_nodes(self.at_nodes, forest.len() as u64)?;
                (Some(p), range.map(|(r, _)| (r, RangeKind::Inherited)))
            }
            None => (None, range),
        };
        for root in roots {
            let start = self.at;
            let dur = self.node(forest, root, parent, (start, self.at_nodes), range)?;
            self.at = start.saturating_add(dur);
            self.at_nodes += subtree_nodes(forest, root);
        }
        Ok(())
    }

    /// The range of the source's declaration a root's header names, if any.
    fn declaration_range(&self, class: &str, text: &str) -> Option<(SourceRange, RangeKind)> {
        let text = recording::status_emoji::strip(text).replace('\n', " ");
        let text = text.trim();
        // `Elab.definition.*` steps (`definition.*` as an infoview copy shortens it) are
        // tagged with the declaration's name, which is their text
        let named = if class.starts_with("Elab.definition") || class.starts_with("definition.") {
            Some(text).filter(|t| !t.contains(' '))
        } else {
            declaration_named_by(class, None, text)
        }?;
        let name = public_name(named);
        let d = self.declarations.iter().find(|d| d.name == name)?;
        Some((d.range, RangeKind::Inherited))
    }

    fn node(
        &mut self,
        forest: &TraceForest,
        id: usize,
        parent: Option<u32>,
        (start, start_nodes): (u64, u64),
        range: Option<(SourceRange, RangeKind)>,
    ) -> Result<u64> {
        let Some(n) = forest.node(id) else {
            return Ok(0);
        };
        let dur = n.timing.map_or(0, |t| measure::value(self.measure, t));
        // placed where the parent is, else on the declaration the header names (its
        // descendants inherit that)
        let (own_range, range) = match range {
            Some((r, _)) if parent.is_some() => (Some((r, RangeKind::Inherited)), range),
            Some(_) => (range, range),
            None => {
                let named = self.declaration_range(forest.class(id), &n.text);
                (named, named)
            }
        };
        let index = self.push(SinkEvent {
            parent,
            class: forest.class(id),
            label: &n.text,
            start_ns: start,
            duration_ns: dur,
            thread: self.thread,
            range: own_range,
        })?;
        self.sink
            .lay_out_nodes(start_nodes, subtree_nodes(forest, id))?;
        let mut at = start;
        let mut at_nodes = start_nodes;
        let children: Vec<usize> = forest.children(id).collect();
        for c in children {
            let d = self.node(forest, c, Some(index), (at, at_nodes), range)?;
            // a child never ends after its parent, even if rounding says so
            at = at.saturating_add(d).min(start.saturating_add(dur));
            at_nodes += subtree_nodes(forest, c);
        }
        Ok(dur)
    }
}

/// The nodes of the subtree of `id`: itself and its descendants.
fn subtree_nodes(forest: &TraceForest, id: usize) -> u64 {
    forest
        .node(id)
        .map_or(0, |n| n.subtree_end().saturating_sub(id) as u64)
}
