//! Small helpers of no part in particular, used by several: the bottom floor, importing nothing.

pub mod edit_distance;
pub mod fast_hash;
pub mod stack;
