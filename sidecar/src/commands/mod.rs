//! One module per subcommand.

pub mod info;
pub mod profile;
pub mod profile_session;
pub mod query;
pub mod synth;
