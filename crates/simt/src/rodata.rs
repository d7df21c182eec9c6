//! Where a kernel module's read-only data lies in a lane's memory, so that a pooled lane's
//! restore ([`crate::wasm`]) copies back only the statics a lane can change.
//!
//! `wasm-ld` puts a crate's constants (string literals, tables, panic messages: Rust's
//! `.rodata.*` sections) into a data segment of their own, named `.rodata` in the module's
//! `name` section, apart from the writable statics (`.data`, and `.bss`, which has no
//! segment: its bytes start as zeros). Safe Rust cannot write to a constant, and the
//! sandbox builds only kernels without `unsafe`, so those bytes are as the module left them
//! when a lane ends; restoring them was about 9.4 KiB of the 10 KiB copied per lane start of
//! the course's modules.
//!
//! Anything this parser does not recognise (no `name` section, a segment placed by a
//! `global.get`, a malformed section) leaves the segment out of the read-only set: the
//! restore then copies it too, as before. The module is read with `wasmparser`, the
//! reader wasmi itself is built on.

use std::ops::Range;

/// The memory ranges of the active data segments of `wasm` that the module's `name`
/// section calls `.rodata` (or `.rodata.<something>`): empty when there are none or the
/// module cannot be read.
pub(crate) fn read_only_ranges(wasm: &[u8]) -> Vec<Range<usize>> {
    parse(wasm).unwrap_or_default()
}

/// The parts of `statics` outside every range of `read_only`, in order: what a pooled
/// lane's restore copies.
pub(crate) fn writable(
    statics: std::ops::Range<usize>,
    read_only: &[std::ops::Range<usize>],
) -> Vec<std::ops::Range<usize>> {
    let mut ro: Vec<_> = read_only.to_vec();
    ro.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    let mut at = statics.start;
    for r in ro {
        let (start, end) = (r.start.max(at), r.end.min(statics.end));
        if start >= end {
            continue;
        }
        if start > at {
            out.push(at..start);
        }
        at = end;
    }
    if at < statics.end {
        out.push(at..statics.end);
    }
    out
}

fn parse(wasm: &[u8]) -> Option<Vec<Range<usize>>> {
    use wasmparser::{DataKind, KnownCustom, Name, Operator, Parser, Payload};
    // Active segments by index: where each starts in memory and how long it is (`None`
    // for a passive one, or one placed by anything but an `i32.const` in memory 0).
    let mut placed: Vec<Option<Range<usize>>> = Vec::new();
    let mut read_only: Vec<u32> = Vec::new();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.ok()? {
            Payload::DataSection(reader) => {
                for data in reader {
                    let data = data.ok()?;
                    let start = match data.kind {
                        DataKind::Active {
                            memory_index: 0,
                            offset_expr,
                        } => {
                            let mut ops = offset_expr.get_operators_reader();
                            match (ops.read().ok()?, ops.read().ok()?) {
                                (Operator::I32Const { value }, Operator::End) => {
                                    Some(value as u32 as usize)
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    placed.push(start.map(|s| s..s + data.data.len()));
                }
            }
            Payload::CustomSection(custom) => {
                if let KnownCustom::Name(names) = custom.as_known() {
                    for name in names {
                        let Name::Data(map) = name.ok()? else {
                            continue;
                        };
                        for naming in map {
                            let naming = naming.ok()?;
                            if naming.name == ".rodata" || naming.name.starts_with(".rodata.") {
                                read_only.push(naming.index);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Some(
        read_only
            .into_iter()
            .filter_map(|i| placed.get(i as usize).cloned().flatten())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm_bytes::{header, name, section, sleb, uleb};

    /// A module with data segments placed at `offsets` (an `i32.const`, or `None` for a
    /// `global.get`), `len` bytes each, named `names` in a `name` section when given.
    fn module(offsets: &[Option<u32>], len: u32, names: Option<&[&str]>) -> Vec<u8> {
        let mut m = header();
        let mut data = Vec::new();
        uleb(offsets.len() as u64, &mut data);
        for o in offsets {
            data.push(0);
            match o {
                Some(o) => {
                    data.push(0x41);
                    sleb(*o as i64, &mut data);
                }
                None => data.extend_from_slice(&[0x23, 0]),
            }
            data.push(0x0b);
            uleb(len as u64, &mut data);
            data.extend(std::iter::repeat_n(7u8, len as usize));
        }
        section(11, &data, &mut m);
        if let Some(names) = names {
            let mut sub = Vec::new();
            uleb(names.len() as u64, &mut sub);
            for (i, n) in names.iter().enumerate() {
                uleb(i as u64, &mut sub);
                name(n, &mut sub);
            }
            let mut custom = Vec::new();
            name("name", &mut custom);
            custom.push(9);
            uleb(sub.len() as u64, &mut custom);
            custom.extend_from_slice(&sub);
            section(0, &custom, &mut m);
        }
        // Another custom section after `name` (rustc's `producers` and `target_features`).
        let mut other = Vec::new();
        name("producers", &mut other);
        other.push(0);
        section(0, &other, &mut m);
        m
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)] // lists of one range are what is meant
    fn the_restore_covers_the_statics_around_the_constants() {
        assert_eq!(writable(100..200, &[]), vec![100..200]);
        assert_eq!(writable(100..200, &[100..150]), vec![150..200]);
        assert_eq!(
            writable(100..200, &[160..170, 120..130]),
            vec![100..120, 130..160, 170..200]
        );
        assert_eq!(writable(100..200, &[50..250]), Vec::<Range<usize>>::new());
        assert_eq!(writable(100..200, &[0..10, 300..400]), vec![100..200]);
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn only_segments_named_rodata_are_read_only() {
        let m = module(
            &[Some(65536), Some(70000), Some(80000)],
            100,
            Some(&[".rodata", ".data", ".rodata.cst16"]),
        );
        assert_eq!(read_only_ranges(&m), vec![65536..65636, 80000..80100]);
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn without_names_or_a_constant_offset_nothing_is_read_only() {
        assert!(read_only_ranges(&module(&[Some(65536)], 100, None)).is_empty());
        assert!(read_only_ranges(&module(&[None], 100, Some(&[".rodata"]))).is_empty());
        // Cut short inside a section, the module is not trusted with a read-only range;
        // cut between sections, it is a shorter module, read as such.
        let m = module(&[Some(65536)], 100, Some(&[".rodata"]));
        let whole = read_only_ranges(&m);
        assert_eq!(whole, vec![65536..65636]);
        let name_end = m.len() - b"\0\x0b\x09producers\0".len();
        for cut in 8..m.len() {
            let ranges = read_only_ranges(&m[..cut]);
            if cut == name_end {
                assert_eq!(ranges, whole);
            } else {
                assert!(ranges.is_empty(), "cut at {cut}: {ranges:?}");
            }
        }
    }
}
