//! The expander's maps of names, identifiers and expression sources, hashed by `foldhash`.
//!
//! std's SipHash-1-3 cost about 4% of a fleet run (a hundred thousand repository names,
//! identifiers and six expression lookups per target); these keys are short strings, which
//! foldhash (already built for serde_json) hashes several times faster. The keys come from the
//! input, so both of foldhash's seeds are drawn once per process from std's random keys (the
//! operating system's randomness): without them, nobody can prepare names that all land in
//! one bucket. foldhash's own `RandomState` seeds from addresses only (its `std` feature,
//! which adds the clock, is not what serde_json builds).

use foldhash::fast::SeedableRandomState;
use foldhash::SharedSeed;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// A `HashMap` with [`FastState`].
pub type FastMap<K, V> = HashMap<K, V, FastState>;
/// A `HashSet` with [`FastState`].
pub type FastSet<K> = HashSet<K, FastState>;

/// Builds foldhash's hashers with this process's random seeds.
#[derive(Debug, Clone)]
pub struct FastState(SeedableRandomState);

impl Default for FastState {
    fn default() -> Self {
        static SEEDS: OnceLock<(u64, SharedSeed)> = OnceLock::new();
        let (seed, shared) = SEEDS.get_or_init(|| {
            let random = std::collections::hash_map::RandomState::new();
            (
                random.hash_one(1u64),
                SharedSeed::from_u64(random.hash_one(2u64)),
            )
        });
        FastState(SeedableRandomState::with_seed(*seed, shared))
    }
}

impl BuildHasher for FastState {
    type Hasher = foldhash::fast::FoldHasher<'static>;

    fn build_hasher(&self) -> Self::Hasher {
        self.0.build_hasher()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(s: &str) -> u64 {
        FastState::default().hash_one(s)
    }

    #[test]
    fn equal_keys_hash_alike_and_different_keys_apart() {
        assert_eq!(hash("site-00001"), hash("site-00001"));
        let mut seen = FastSet::default();
        let keys = [
            "",
            "a",
            "a\0",
            "ab",
            "b",
            "site-00001",
            "site-00002",
            "site-10001",
        ];
        for k in keys {
            assert!(seen.insert(hash(k)), "{k:?}");
        }
        let names: FastSet<String> = (0..100_000).map(|i| format!("site-{i:05}")).collect();
        assert_eq!(names.len(), 100_000);
        let hashes: FastSet<u64> = names.iter().map(|n| hash(n)).collect();
        assert_eq!(hashes.len(), 100_000);
    }
}
