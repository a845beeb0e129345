//! The server's log on stderr. Each line goes out in one write: Rust's
//! stderr is unbuffered, so `eprintln!` writes every piece of its format
//! separately, and a client reading the pipe could see a line cut in two.

use std::io::Write;

/// Writes `line` and a newline to stderr in one write.
pub(crate) fn line(line: std::fmt::Arguments<'_>) {
    let mut text = line.to_string();
    text.push('\n');
    // Nothing is left to tell if stderr itself is gone.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprintln!` for the server: one line, one write.
macro_rules! log_line {
    ($($arg:tt)*) => { $crate::serve::log::line(format_args!($($arg)*)) };
}
pub(crate) use log_line;
