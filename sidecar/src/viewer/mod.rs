//! The viewer outside VS Code: the page and its data served to a browser
//! by `leanscope view`, or written as a static site by `leanscope publish`
//! (the commands themselves are `commands::view` and `commands::publish`).
//!
//! - [`site`]: the viewer's embedded assets, what is viewed ([`site::Target`]:
//!   a session, a recording, an imported file) and the page configured for it;
//! - [`first_view`]: a session's summary and root folder, put in the page so
//!   it paints before the worker is ready;
//! - [`server`]: `view`'s HTTP server (connections, routes, ranges, the page
//!   cache);
//! - [`static_site`]: `publish`'s copy of the site;
//! - [`confined`]: opening data files beneath the viewed directory only (both).

pub mod confined;
pub mod first_view;
pub mod server;
pub mod site;
pub mod static_site;
