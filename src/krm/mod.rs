//! The KRM Functions protocol: the ResourceList read from stdin and written to stdout, the
//! `results` that report problems, the identity every item carries, and the dispatch of a
//! functionConfig to the function that serves it.
//!
//! What does not live here: the functions themselves (`package_variant`,
//! `package_variant_set`) and YAML syntax (`yaml`). This layer knows neither function: the
//! crate root hands [`dispatch::run`] the table of functions it serves.

pub mod dispatch;
pub mod items;
pub mod object;
pub mod output;
pub mod resource_list;
pub mod results;
pub mod run;
