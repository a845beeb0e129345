//! `fake-lean`: behaves as `lake` or `lean` depending on the name it is invoked under.
//! See the crate documentation (`src/lib.rs`) and fixtures/README.md.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(fake_toolchain::run(&args));
}
