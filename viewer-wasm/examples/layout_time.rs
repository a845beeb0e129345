//! Times the viewer model natively on a recording: load (decode, then
//! linking the forest), file model and summary, timeline index (built on
//! first use), and a full zoom-out layout.
//!
//! `cargo run --release -p viewer-wasm --example layout_time -- FILE.lsrec`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: layout_time FILE.lsrec")?;
    let bytes = std::fs::read(&path)?;
    let hint = recording::model::footer_event_hint(&path).unwrap_or(0) as u64;
    let t = std::time::Instant::now();
    let mut load = viewer_wasm::file::RecordingLoad::new(hint, bytes.len() as u64);
    for chunk in bytes.chunks(1 << 16) {
        load.push(chunk)?;
    }
    let rec = load.finish(None)?;
    let decoded = t.elapsed();
    let t = std::time::Instant::now();
    let model = viewer_wasm::file::FileModel::new(rec);
    let _summary = model.summary();
    let summarized = t.elapsed();
    let t = std::time::Instant::now();
    let (a, b) = (
        model.timeline().start_ns as f64,
        model.timeline().end_ns as f64,
    );
    let indexed = t.elapsed();
    let t = std::time::Instant::now();
    let rects = model.timeline().layout(&model.rec, a, b, 1390);
    let laid = t.elapsed();
    println!(
        "decode+model {decoded:?}, file model and summary {summarized:?}, timeline index {indexed:?}, \
         layout {laid:?} ({} rectangles, {} pyramid levels: {:?} entries)",
        rects.len() / viewer_wasm::timeline::RECT_FIELDS,
        model.timeline().pyramid_levels(),
        model.timeline().pyramid_entries()
    );
    Ok(())
}
