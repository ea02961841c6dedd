//! Small helpers of no part in particular, used by several: the bottom floor, importing nothing.

pub mod fast_hash;
