//! One module per subcommand.

pub mod info;
pub mod profile;
pub mod publish;
pub mod synth;
pub mod synth_session;
pub mod view;
