//! The headroom table for people: one row per declaration, worst share first, with its limit
//! and where the limit comes from, its heartbeats, its slowest instance search when one has a
//! share, and the marks (`WARN`, `OVER`, `bump not needed`).

use std::io::Write;

use recording::headroom::limits::{Check, LimitFrom};
use recording::Measure;

use super::document::Document;

pub fn write(out: &mut impl Write, d: &Document) -> std::io::Result<()> {
    let files = d.files.len();
    writeln!(
        out,
        "{} {} of {} {}, worst share of the limit first (warn at {}{})",
        d.counts.declarations,
        if d.counts.declarations == 1 {
            "declaration"
        } else {
            "declarations"
        },
        files,
        if files == 1 { "file" } else { "files" },
        percent(d.warn_percent / 100.0),
        d.fail_percent
            .map(|f| format!(", fail at {}", percent(f / 100.0)))
            .unwrap_or_default()
    )?;
    writeln!(
        out,
        "{:>8}  {:>18}  {:>11}  declaration",
        "share", "maxHeartbeats", "heartbeats"
    )?;
    for r in &d.declarations {
        let mh = &r.max_heartbeats.check;
        let mut marks = Vec::new();
        if r.over {
            marks.push("OVER".to_owned());
        } else if r.warn {
            marks.push("WARN".to_owned());
        }
        if r.max_heartbeats.bump_not_needed {
            marks.push(format!(
                "bump not needed ({} of the default {})",
                mh.share_of_default().map_or("-".into(), percent),
                mh.default
            ));
        }
        writeln!(
            out,
            "{:>8}  {:>18}  {:>11}  {} {}:{}{}",
            mh.share.map_or("no limit".into(), percent),
            limit(mh),
            Measure::Heartbeats.format(mh.heartbeats),
            r.name,
            r.file,
            r.line,
            if marks.is_empty() {
                String::new()
            } else {
                format!("  {}", marks.join(", "))
            }
        )?;
        if let Some(si) = r.synth_instance {
            writeln!(
                out,
                "{:>8}  {:>18}  {:>11}    slowest instance search: {} (synthInstance.maxHeartbeats)",
                si.check.share.map_or("no limit".into(), percent),
                limit(&si.check),
                Measure::Heartbeats.format(si.check.heartbeats),
                si.instance
            )?;
        }
    }
    if d.counts.bumps_not_needed > 0 {
        writeln!(
            out,
            "{} `set_option maxHeartbeats N in` {} not needed: the declaration fits under {} of the default",
            d.counts.bumps_not_needed,
            if d.counts.bumps_not_needed == 1 { "is" } else { "are" },
            percent(d.bump_not_needed_below)
        )?;
    }
    if let Some(f) = d.fail_percent {
        writeln!(
            out,
            "{} {} at or over {}",
            d.counts.over,
            if d.counts.over == 1 {
                "declaration is"
            } else {
                "declarations are"
            },
            percent(f / 100.0)
        )?;
    }
    Ok(())
}

/// `400000 (in :9)`, `200000 (default)`, `0 (file :3)`.
fn limit(c: &Check) -> String {
    match (c.from, c.line) {
        (LimitFrom::Default, _) | (_, None) => format!("{} ({})", c.limit, c.from.as_str()),
        (from, Some(line)) => format!("{} ({} :{line})", c.limit, from.as_str()),
    }
}

/// `87.5 %`.
fn percent(share: f64) -> String {
    format!("{:.1} %", share * 100.0)
}
