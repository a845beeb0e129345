//! One module per subcommand.

pub mod bench;
pub mod compare;
pub mod compare_summary;
pub mod export;
pub mod from_build;
pub mod headroom;
pub mod import;
pub mod info;
pub mod inputs;
pub mod interrupts;
pub mod mcp;
pub mod profile;
pub mod profile_session;
pub mod publish;
pub mod query;
pub mod revisions;
pub mod serve;
pub mod session;
pub mod summary;
pub mod synth;
pub mod synth_session;
pub mod top;
pub mod view;
