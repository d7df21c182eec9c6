//! Bytes of WebAssembly modules written by hand, for the emulator's own tests: modules
//! that no compiler emits (data segments at chosen places, device calls with words the
//! `gpu` crate never encodes), to test what the sandbox does with them.

/// Appends `v` as an unsigned LEB128 (the format's sizes, counts and indices).
pub(crate) fn uleb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends `v` as a signed LEB128 (the immediates of `i32.const` and `i64.const`).
pub(crate) fn sleb(mut v: i64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0) {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends a name (its length, then its bytes).
pub(crate) fn name(s: &str, out: &mut Vec<u8>) {
    uleb(s.len() as u64, out);
    out.extend_from_slice(s.as_bytes());
}

/// Appends section `id` with `body`.
pub(crate) fn section(id: u8, body: &[u8], out: &mut Vec<u8>) {
    out.push(id);
    uleb(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// The module header: magic and version.
pub(crate) fn header() -> Vec<u8> {
    b"\0asm\x01\0\0\0".to_vec()
}
