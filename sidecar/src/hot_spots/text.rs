//! The hot-spots document for people: the bottom-up table (key, self, share, total, count,
//! files), a session's top files and declarations under each key, the `(other)` line, and
//! a tree indented by level. Values share a unit per column
//! (`Measure::format_in_unit_of`).

use std::io::Write;

use recording::Measure;

use super::document::{Document, NodeDoc};

/// Top files and declarations a session's key lists under its row.
const PLACES_SHOWN: usize = 3;

pub fn write(out: &mut impl Write, d: &Document) -> std::io::Result<()> {
    let m = d.measure;
    let scale = |f: fn(&super::document::Row) -> u64| d.rows.iter().map(f).max().unwrap_or(0);
    let (self_scale, total_scale) = (scale(|r| r.self_time), scale(|r| r.total));
    let v = |x: u64, s: u64| m.format_in_unit_of(i128::from(x), u128::from(s));
    writeln!(
        out,
        "{} {} by {}, {} of work, sorted by {}{}",
        d.files,
        if d.files == 1 { "file" } else { "files" },
        d.by,
        m.format(d.work),
        d.sort,
        if d.classes.is_empty() {
            String::new()
        } else {
            format!(", classes {}", d.classes.join(", "))
        }
    )?;
    let session = d.source_kind == "session";
    writeln!(
        out,
        "{:>12}  {:>6}  {:>12}  {:>8}  {:>6}  key",
        "self", "share", "total", "count", "files"
    )?;
    for r in &d.rows {
        writeln!(
            out,
            "{:>12}  {:>5.1}%  {:>12}  {:>8}  {:>6}  {}",
            v(r.self_time, self_scale),
            r.share * 100.0,
            v(r.total, total_scale),
            r.count,
            r.files,
            one_line(&r.key.label)
        )?;
        if session {
            for f in r.top_files.iter().take(PLACES_SHOWN) {
                writeln!(
                    out,
                    "{:>52}  file {} {}",
                    "",
                    one_line(&f.path),
                    m.format(f.total)
                )?;
            }
            for t in r.top_declarations.iter().take(PLACES_SHOWN) {
                writeln!(
                    out,
                    "{:>52}  declaration {} ({}) {}",
                    "",
                    one_line(&t.declaration),
                    one_line(&t.path),
                    m.format(t.total)
                )?;
            }
        }
    }
    if d.more > 0 {
        writeln!(out, "… {} more keys (--limit shows more)", d.more)?;
    }
    if let Some(o) = &d.other {
        writeln!(
            out,
            "{:>12}  {:>6}  {:>12}  {:>8}  {:>6}  (other): {} keys past the limits of distinct keys",
            v(o.self_time, self_scale),
            "",
            v(o.total, total_scale),
            o.count,
            o.files,
            o.holds
        )?;
    }
    if let Some(t) = &d.tree {
        writeln!(out)?;
        let what = if t.inverted {
            "bottom-up tree (each key's self time through its callers)"
        } else {
            "call tree"
        };
        if t.path.is_empty() {
            writeln!(out, "{what}, of {}:", m.format(t.total))?;
        } else {
            let labels: Vec<String> = t.path.iter().map(|k| one_line(&k.label)).collect();
            writeln!(out, "{what} at {}:", labels.join(" > "))?;
        }
        for n in &t.nodes {
            node(out, n, 0, m)?;
        }
        if t.hidden > 0 {
            writeln!(out, "… {} more", t.hidden)?;
        }
    }
    Ok(())
}

fn node(out: &mut impl Write, n: &NodeDoc, level: usize, m: Measure) -> std::io::Result<()> {
    writeln!(
        out,
        "{}{}  {} (self {}, {} calls)",
        "  ".repeat(level),
        one_line(&n.key.label),
        m.format(n.total),
        m.format(n.self_time),
        n.count
    )?;
    for c in &n.children {
        node(out, c, level + 1, m)?;
    }
    if n.hidden > 0 {
        writeln!(out, "{}… {} more", "  ".repeat(level + 1), n.hidden)?;
    }
    Ok(())
}

/// Labels on one line: tabs and line breaks become spaces.
fn one_line(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}
