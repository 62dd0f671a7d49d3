//! The package's hash maps: hashbrown with a small multiply-and-rotate hasher instead of
//! std's SipHash, built like foldhash's (folded multiplication).
//!
//! NOTE: on `wasm32-unknown-unknown` std's `RandomState` has no source of randomness and
//! hashes with fixed keys, so SipHash there bought no resistance to crafted keys, only code:
//! this hasher is about 1 KB gzipped smaller in the package and faster on the short keys it
//! sees (tool-call ids, tag names). The final mix spreads every input bit over the top bits,
//! which hashbrown uses to pick among a group's slots.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FoldHasher`].
pub type Map<K, V> = HashMap<K, V, BuildHasherDefault<FoldHasher>>;

/// Folds 8 bytes at a time into the state: xor, then a full 64×64→128-bit multiply whose
/// halves are xored together (so every input bit reaches every output bit, in both
/// directions); mixed once more at the end.
#[derive(Clone, Copy, Debug)]
pub struct FoldHasher(u64);

impl Default for FoldHasher {
    fn default() -> Self {
        Self(0x243f_6a88_85a3_08d3)
    }
}

impl FoldHasher {
    fn add(&mut self, word: u64) {
        let product = u128::from(self.0 ^ word) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            // NOTE: a short last chunk starts from its length, so "a" and "a\0" differ.
            let word = chunk.iter().rev().fold(chunk.len() as u64, |word, byte| (word << 8) | u64::from(*byte));
            self.add(word);
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        let mut hash = self.0;
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
        hash ^ (hash >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn different_short_keys_hash_apart_and_equal_keys_alike() {
        let build = BuildHasherDefault::<FoldHasher>::default();
        let mut keys: Vec<String> = (0..10_000).map(|i| format!("call_{i}")).collect();
        keys.extend((0..10_000).map(|i| format!("{i:0>16}")));
        keys.extend((0..64).map(|n| "\0".repeat(n)));
        let mut hashes: Vec<u64> = keys.iter().map(|k| build.hash_one(k)).collect();
        assert_eq!(build.hash_one("call_7"), build.hash_one(String::from("call_7")));
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), keys.len());
        let mut top: Vec<u64> = keys.iter().map(|k| build.hash_one(k) >> 57).collect();
        top.sort_unstable();
        top.dedup();
        assert_eq!(top.len(), 128, "the top seven bits take every value");
    }
}
