//! The package's one map: byte strings to positions (`usize`), which is all the parser, the
//! decoders and the loop need (a tag's roles, a call id's place, a key's member).
//!
//! NOTE: one non-generic open-addressing table instead of `std`'s `HashMap`: every map here
//! is keyed by text and holds a position, so one copy of the code serves them all, where
//! hashbrown's grew a copy per key and value type (2.6 KB gzipped in the package).
//! On `wasm32-unknown-unknown` std's `RandomState` has no source of randomness and hashes
//! with fixed keys, so SipHash there bought no resistance to crafted keys either: the hash
//! is a small multiply-and-fold (folded multiplication, like foldhash's).

/// A map from byte strings to positions, in insertion order.
///
/// ```
/// use clew_base::hash::StrMap;
/// let mut map = StrMap::default();
/// assert_eq!(map.insert(b"call_1", 0), None);
/// assert_eq!(map.insert(b"call_1", 4), Some(0));
/// assert_eq!(map.get(b"call_1"), Some(4));
/// assert!(!map.contains_key(b"call_2"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct StrMap {
    entries: Vec<(Box<[u8]>, usize)>,
    /// A power of two long (or empty), at most half full: 0 is an empty slot, `n` holds
    /// entry `n - 1`.
    slots: Vec<u32>,
}

impl StrMap {
    /// The value of `key`, if the map has it.
    pub fn get(&self, key: &[u8]) -> Option<usize> {
        let slot = self.find(key).ok()?;
        let entry = self.slots.get(slot).and_then(|&n| self.entries.get((n as usize).wrapping_sub(1)))?;
        Some(entry.1)
    }

    /// Whether the map has `key`.
    pub fn contains_key(&self, key: &[u8]) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`; returns the value it had.
    pub fn insert(&mut self, key: &[u8], value: usize) -> Option<usize> {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        match self.find(key) {
            Ok(slot) => {
                let n = *self.slots.get(slot)? as usize;
                let entry = self.entries.get_mut(n.wrapping_sub(1))?;
                Some(std::mem::replace(&mut entry.1, value))
            }
            Err(slot) => {
                self.entries.push((key.into(), value));
                if let Some(empty) = self.slots.get_mut(slot) {
                    *empty = self.entries.len() as u32;
                }
                None
            }
        }
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map holds no key.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every key, keeping the memory.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.slots.iter_mut().for_each(|slot| *slot = 0);
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn find(&self, key: &[u8]) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = hash(key) as usize & mask;
        // NOTE: the table is never more than half full, so an empty slot ends every probe;
        // the bound only guards an empty table.
        for _ in 0..self.slots.len() {
            match self.slots.get(at) {
                Some(0) | None => return Err(at),
                Some(&n) if self.entries.get(n as usize - 1).is_some_and(|(k, _)| **k == *key) => return Ok(at),
                Some(_) => at = (at + 1) & mask,
            }
        }
        Err(at)
    }

    /// Doubles the table (at least 8 slots) and puts every entry back.
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(8);
        let mask = len - 1;
        let mut slots = vec![0u32; len];
        for (n, (key, _)) in self.entries.iter().enumerate() {
            let mut at = hash(key) as usize & mask;
            while let Some(slot) = slots.get_mut(at) {
                if *slot == 0 {
                    *slot = n as u32 + 1;
                    break;
                }
                at = (at + 1) & mask;
            }
        }
        self.slots = slots;
    }
}

/// Folds 8 bytes at a time into the state: xor, then a full 64×64→128-bit multiply whose
/// halves are xored together (every input bit reaches every output bit); mixed once more
/// at the end, so the low bits the table uses depend on every byte.
fn hash(bytes: &[u8]) -> u64 {
    let mut state: u64 = 0x243f_6a88_85a3_08d3;
    for chunk in bytes.chunks(8) {
        // NOTE: a short last chunk starts from its length, so "a" and "a\0" differ.
        let word = chunk.iter().rev().fold(chunk.len() as u64, |word, byte| (word << 8) | u64::from(*byte));
        let product = u128::from(state ^ word) * 0x9e37_79b9_7f4a_7c15;
        state = (product as u64) ^ ((product >> 64) as u64);
    }
    state ^= state >> 33;
    state = state.wrapping_mul(0xff51_afd7_ed55_8ccd);
    state ^ (state >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_short_keys_hash_apart_and_their_low_bits_spread() {
        let mut keys: Vec<String> = (0..10_000).map(|i| format!("call_{i}")).collect();
        keys.extend((0..10_000).map(|i| format!("{i:0>16}")));
        keys.extend((0..64).map(|n| "\0".repeat(n)));
        let mut hashes: Vec<u64> = keys.iter().map(|k| hash(k.as_bytes())).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), keys.len());
        let mut low: Vec<u64> = keys.iter().map(|k| hash(k.as_bytes()) & 127).collect();
        low.sort_unstable();
        low.dedup();
        assert_eq!(low.len(), 128, "the low seven bits take every value");
    }

    #[test]
    fn a_map_agrees_with_std_over_many_inserts_overwrites_and_clears() {
        let mut map = StrMap::default();
        let mut model = std::collections::HashMap::new();
        assert_eq!(map.get(b""), None);
        for round in 0..3 {
            for i in 0..5_000usize {
                let key = format!("k{}", (i * 7919) % 3_001);
                assert_eq!(map.insert(key.as_bytes(), i + round), model.insert(key.clone(), i + round));
            }
            assert_eq!(map.len(), model.len());
            for (key, value) in &model {
                assert_eq!(map.get(key.as_bytes()), Some(*value));
            }
            assert!(!map.contains_key(b"absent"));
            map.clear();
            model.clear();
            assert!(map.is_empty());
            assert_eq!(map.get(b"k1"), None);
        }
    }

    #[test]
    fn the_empty_key_is_a_key() {
        let mut map = StrMap::default();
        assert!(!map.contains_key(b""));
        map.insert(b"", 3);
        assert_eq!(map.get(b""), Some(3));
    }
}
