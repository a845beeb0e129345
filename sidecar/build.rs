//! Embeds the viewer into the binary for `leanscope view` and `leanscope
//! publish`: from viewer-wasm/www the page (index.html), its stylesheet and
//! worker.js; from viewer-wasm/pkg (made by scripts/build-viewer) the page's
//! script bundled into one module (viewer.js, esbuild's bundle of www's ES
//! modules, which are its source and are not embedded) and the wasm with its
//! wasm-bindgen glue. Without a built pkg the binary still builds; those
//! commands then say how to build the viewer.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The files taken from viewer-wasm/www as they are.
const WWW_FILES: [&str; 3] = ["index.html", "viewer.css", "worker.js"];
/// The files made by scripts/build-viewer: the bundle, the glue, the wasm.
const PKG_FILES: [&str; 3] = ["viewer.js", "viewer_wasm.js", "viewer_wasm_bg.wasm"];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("..")
        .join("viewer-wasm");
    let www = root.join("www");
    let pkg = root.join("pkg");
    println!("cargo:rerun-if-changed={}", www.display());
    println!("cargo:rerun-if-changed={}", pkg.display());
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for f in WWW_FILES {
        let path = www.join(f);
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_file() {
            files.push((f.to_string(), path));
        }
    }
    let built = PKG_FILES.iter().all(|f| pkg.join(f).is_file());
    if built {
        for f in PKG_FILES {
            let path = pkg.join(f);
            println!("cargo:rerun-if-changed={}", path.display());
            files.push((f.to_string(), path));
        }
        warn_if_stale(&www, &pkg.join("viewer.js"));
    }
    files.sort();
    let mut out = String::new();
    writeln!(
        out,
        "/// Whether the viewer (its script bundle and wasm) was built into this binary."
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

/// A warning when a module of www (the bundle's source) is newer than the
/// bundle: the binary would serve the page as it was at the last
/// scripts/build-viewer.
fn warn_if_stale(www: &Path, bundle: &Path) {
    let modified = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
    let Some(bundled) = modified(bundle) else {
        return;
    };
    let Ok(dir) = std::fs::read_dir(www) else {
        return;
    };
    let mut newer: Vec<String> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .filter(|p| p.file_name().is_some_and(|n| n != "worker.js"))
        .filter(|p| modified(p).is_some_and(|t: SystemTime| t > bundled))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    newer.sort();
    if !newer.is_empty() {
        println!(
            "cargo:warning=viewer-wasm/pkg/viewer.js is older than viewer-wasm/www/{} \
             (the page's modules); run scripts/build-viewer to bundle them again",
            newer.join(", ")
        );
    }
}

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}
