//! FNV-1a, 64 bits: the one small hash the course uses to name things (a scratch folder by
//! its path, a cached module by its inputs, a text input by its bytes). Not for security:
//! stable across runs and platforms, which `std`'s hasher is not.

/// FNV-1a's 64-bit offset basis: the state before any byte.
pub const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a's 64-bit prime.
const PRIME: u64 = 0x0100_0000_01b3;

/// The state after `bytes`, from `state` (start from [`OFFSET`], or another basis for an
/// independent second hash).
pub fn extend(state: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(state, |h, &b| (h ^ b as u64).wrapping_mul(PRIME))
}

/// The 64-bit FNV-1a of `bytes`.
pub fn hash(bytes: &[u8]) -> u64 {
    extend(OFFSET, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_fnv1a() {
        // The published test vectors of 64-bit FNV-1a.
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(extend(hash(b"foo"), b"bar"), hash(b"foobar"));
    }
}
