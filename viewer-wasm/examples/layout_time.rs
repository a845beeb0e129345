//! Times the viewer model natively on a recording: load, timeline index,
//! and a full zoom-out layout.
//!
//! `cargo run --release -p viewer-wasm --example layout_time -- FILE.lsrec`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: layout_time FILE.lsrec")?;
    let bytes = std::fs::read(&path)?;
    let t = std::time::Instant::now();
    let mut load = viewer_wasm::file::RecordingLoad::new(0, 0);
    for chunk in bytes.chunks(1 << 16) {
        load.push(chunk)?;
    }
    let rec = load.finish()?;
    let decoded = t.elapsed();
    let t = std::time::Instant::now();
    let model = viewer_wasm::file::FileModel::new(rec);
    let indexed = t.elapsed();
    let (a, b) = (model.timeline.start_ns as f64, model.timeline.end_ns as f64);
    let t = std::time::Instant::now();
    let rects = model.timeline.layout(&model.rec, a, b, 1390);
    let laid = t.elapsed();
    println!(
        "decode+model {decoded:?}, timeline index {indexed:?}, layout {laid:?} ({} rectangles)",
        rects.len() / viewer_wasm::timeline::RECT_FIELDS
    );
    Ok(())
}
