//! A toolchain folder of the fake: `bin/lake` and `bin/lean` (links to the
//! fake binary) and, beside `bin/`, the fake's `toolchains.json` at
//! `fixtures/lean-output/`, where the fake finds it when a sandbox has
//! cleared its environment (a revision run's samples).

use std::path::PathBuf;

pub struct Toolchain {
    pub bin: PathBuf,
    _dir: tempfile::TempDir,
}

pub fn toolchain_dir() -> Toolchain {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = super::fake_lean();
    for name in ["lake", "lean"] {
        std::os::unix::fs::symlink(&fake, bin.join(name)).unwrap();
    }
    let fixtures = dir.path().join("fixtures/lean-output");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::copy(
        super::repo().join("fixtures/lean-output/toolchains.json"),
        fixtures.join("toolchains.json"),
    )
    .unwrap();
    Toolchain { bin, _dir: dir }
}
