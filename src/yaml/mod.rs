//! The YAML layer: a parser that keeps source spans, a node tree that knows what was touched,
//! and an emitter that copies untouched text verbatim.
//!
//! Why not serde_yaml or a fork: they drop comments and quoting and renumber values, and kpt
//! restores comments but not quote or flow style. Keeping each node's source text and copying it
//! when the node was not changed is both lossless and fast: an unchanged item costs one copy.
//!
//! Layers, each importing only those before it: [`breaks`] (where lines end, as kpt
//! finds them), [`resolve`] (what a scalar reads as),
//! [`style`] (how a string is written), [`node`] (the tree) with `assign` (kyaml's
//! `SetNestedField` rules), [`alias`] (reading through aliases and merge keys), then [`parse`]
//! (reader, block, flow, scalar, stream), [`emit`], [`json`], [`ser`] and [`text`]. Nothing
//! here knows about KRM resources, ResourceLists or the functions: that is `crate::krm` and
//! above.

pub mod alias;
mod assign;
pub mod breaks;
pub mod emit;
pub mod json;
pub mod node;
pub mod parse;
pub mod resolve;
pub mod ser;
pub mod style;
pub mod text;

pub use emit::Emitter;
pub use json::{from_json, from_json_sorted, strings_sorted, to_json};
pub use node::{Entry, Item, Kind, Node, Props, Scalar, ScalarStyle, Span, Trivia};
pub use parse::{parse, ParseError, Parser};
pub use ser::to_node;
#[cfg(test)]
mod tests;
