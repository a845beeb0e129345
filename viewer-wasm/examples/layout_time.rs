//! Times the viewer model natively on a recording: load (decode, then
//! linking the forest), file model and summary, timeline index (built on
//! first use), a full zoom-out layout, and the hot spots: built in slices
//! as the worker does while idle, then finished (what the first hot-spot
//! request does), against building them whole at that request.
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
    let mut part = recording::hotspots::Incremental::new(recording::hotspots::By::Key);
    while part.take_in_slice(&rec, 1 << 16) {}
    let sliced = t.elapsed();
    let t = std::time::Instant::now();
    drop(part.finish(&rec));
    let finished = t.elapsed();
    let t = std::time::Instant::now();
    let hot = recording::hotspots::HotSpots::of(&rec);
    let whole = t.elapsed();
    println!(
        "hot spots: built in slices of 65536 events {sliced:?}, then finished in {finished:?}; \
         built whole instead {whole:?} ({} keys, {} nodes)",
        hot.rows.len(),
        hot.tree.len()
    );
    drop(hot);
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
