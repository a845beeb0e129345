//! Writes a recording's events as Chrome trace-event JSON (complete "X"
//! events), the format the browser benchmark compares decoding against.
//!
//! `cargo run --release -p viewer-wasm --example chrome_trace -- IN.lsrec OUT.json`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = args.as_slice() else {
        return Err("usage: chrome_trace IN.lsrec OUT.json".into());
    };
    let rec = recording::Recording::open(input)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(output)?);
    out.write_all(b"{\"traceEvents\":[\n")?;
    for i in 0..rec.len() as u32 {
        if i > 0 {
            out.write_all(b",\n")?;
        }
        let thread = &rec.header.threads[rec.thread(i) as usize];
        let range = rec.range(i).map(|r| {
            format!(
                "{}:{}-{}:{}",
                r.start_line, r.start_col, r.end_line, r.end_col
            )
        });
        write!(
            out,
            "{{\"name\":{},\"cat\":{},\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":{},\"args\":{{\"range\":{},\"rangeKind\":\"{}\"}}}}",
            serde_json::to_string(rec.label(i))?,
            serde_json::to_string(rec.class(i))?,
            rec.start(i) as f64 / 1e3,
            rec.inclusive_ns(i) as f64 / 1e3,
            thread.id,
            serde_json::to_string(&range)?,
            rec.range_kind(i).as_str(),
        )?;
    }
    out.write_all(b"\n]}\n")?;
    out.flush()?;
    Ok(())
}
