//! One module per subcommand.

pub mod info;
pub mod profile;
pub mod serve;
pub mod synth;
