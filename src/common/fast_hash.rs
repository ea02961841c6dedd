//! A fast hasher for the expander's maps of names, identifiers and expression sources.
//!
//! std's SipHash-1-3 cost about 4% of a fleet run (a hundred thousand repository names,
//! identifiers and six expression lookups per target). These keys are short strings, so a
//! multiply-and-fold per eight bytes does the same job several times faster. The keys come
//! from the input, so the hasher is seeded once per process from std's random keys: without
//! the seed, nobody can prepare names that all land in one bucket. A crate (foldhash, ahash)
//! would do the same in more code than this file.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// A `HashMap` with [`FastState`].
pub type FastMap<K, V> = HashMap<K, V, FastState>;
/// A `HashSet` with [`FastState`].
pub type FastSet<K> = HashSet<K, FastState>;

/// Builds [`FastHasher`]s with this process's seed.
#[derive(Debug, Clone, Copy)]
pub struct FastState {
    seed: u64,
    multiplier: u64,
}

impl Default for FastState {
    fn default() -> Self {
        static SEEDS: OnceLock<(u64, u64)> = OnceLock::new();
        let &(seed, multiplier) = SEEDS.get_or_init(|| {
            let random = std::collections::hash_map::RandomState::new();
            (random.hash_one(1u64), random.hash_one(2u64) | 1)
        });
        FastState { seed, multiplier }
    }
}

impl BuildHasher for FastState {
    type Hasher = FastHasher;

    fn build_hasher(&self) -> FastHasher {
        FastHasher {
            state: self.seed,
            multiplier: self.multiplier,
        }
    }
}

/// The hasher of [`FastState`].
#[derive(Debug, Clone)]
pub struct FastHasher {
    state: u64,
    multiplier: u64,
}

/// The full 128-bit product, folded to 64 bits: every bit of both inputs reaches the result.
fn fold_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.state = fold_multiply(self.state ^ u64::from_le_bytes(word), self.multiplier);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length tells "a" from "a\0".
            self.state = fold_multiply(
                self.state ^ u64::from_le_bytes(word),
                self.multiplier ^ ((rest.len() as u64) << 56),
            );
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.state = fold_multiply(self.state ^ i, self.multiplier);
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    fn finish(&self) -> u64 {
        fold_multiply(self.state, self.multiplier.rotate_left(32) | 1)
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
