//! Embeds the viewer (viewer-wasm/www and the wasm-bindgen output in
//! viewer-wasm/pkg, made by scripts/build-viewer) into the binary for
//! `leanscope view` and `leanscope publish`. Without a built pkg the binary
//! still builds; those commands then say how to build the viewer.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const PKG_FILES: [&str; 2] = ["viewer_wasm.js", "viewer_wasm_bg.wasm"];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("..")
        .join("viewer-wasm");
    let www = root.join("www");
    let pkg = root.join("pkg");
    println!("cargo:rerun-if-changed={}", www.display());
    println!("cargo:rerun-if-changed={}", pkg.display());
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir(&www) {
        for entry in dir.flatten() {
            let path = entry.path();
            // The page's files: its HTML, stylesheet and script modules (not
            // the folder's package.json, which is for Node).
            let page_file = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("html" | "css" | "js")
            );
            if path.is_file() && page_file {
                let name = entry.file_name().to_string_lossy().into_owned();
                println!("cargo:rerun-if-changed={}", path.display());
                files.push((name, path));
            }
        }
    }
    let built = PKG_FILES.iter().all(|f| pkg.join(f).is_file());
    if built {
        for f in PKG_FILES {
            let path = pkg.join(f);
            println!("cargo:rerun-if-changed={}", path.display());
            files.push((f.to_string(), path));
        }
    }
    files.sort();
    let mut out = String::new();
    writeln!(
        out,
        "/// Whether the wasm part of the viewer was built into this binary."
    )
    .ok();
    writeln!(out, "pub const VIEWER_BUILT: bool = {built};").ok();
    writeln!(out, "/// The viewer's files: (name, bytes).").ok();
    writeln!(out, "pub const VIEWER_ASSETS: &[(&str, &[u8])] = &[").ok();
    for (name, path) in &files {
        writeln!(out, "    ({name:?}, include_bytes!({:?})),", abs(path)).ok();
    }
    writeln!(out, "];").ok();
    let dest =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("viewer_assets.rs");
    std::fs::write(dest, out).expect("cannot write viewer_assets.rs");
}

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}
