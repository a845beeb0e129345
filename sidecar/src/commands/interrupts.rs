//! Ctrl-C and SIGTERM during a capture: `profile` of a file and of a folder or project
//! install them alike.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Result;

use crate::exit;

/// Ctrl-C and SIGTERM cancel the capture (Lean is stopped, nothing is left
/// half-written); the exit code says which signal it was.
pub struct Interrupts {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Interrupts {
    pub fn install(cancel: &crate::capture::CancelToken) -> Result<Interrupts> {
        let int = Arc::new(AtomicBool::new(false));
        let term = Arc::new(AtomicBool::new(false));
        for (sig, flag) in [
            (signal_hook::consts::SIGINT, &int),
            (signal_hook::consts::SIGTERM, &term),
        ] {
            signal_hook::flag::register(sig, flag.clone())?;
            signal_hook::flag::register(sig, cancel.flag())?;
        }
        Ok(Interrupts { int, term })
    }

    /// 130 after SIGINT, 143 after SIGTERM.
    pub fn exit_code(&self) -> Option<u8> {
        if self.int.load(Ordering::SeqCst) {
            Some(exit::INTERRUPTED)
        } else if self.term.load(Ordering::SeqCst) {
            Some(exit::TERMINATED)
        } else {
            None
        }
    }
}
