//! The operations a lane parks on: what the `gpu` device API asks the emulator to do.
//!
//! Each variant is one kind of warp instruction. The `gpu` crate builds them; the
//! scheduler groups the lanes of a warp parked at the same call site and executes their
//! operations together, as one step.

/// Which memory an access goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    /// Device memory (`cudaMalloc`): visible to the whole grid, reached through 32-byte
    /// sectors.
    Global,
    /// Per-block on-chip memory (`__shared__`): 32 banks of 4 bytes.
    Shared,
    /// Read-only memory the host sets before a launch (`__constant__`): 64 KiB per
    /// module, read through a per-SM constant cache that serves one address per pass, so
    /// a warp whose lanes read `k` distinct addresses takes `k` passes. Loads only: a store
    /// or an atomic to it is an invalid device call.
    Constant,
}

impl Space {
    /// The CUDA spelling, as compute-sanitizer prints it.
    pub fn cuda_name(self) -> &'static str {
        match self {
            Space::Global => "__global__",
            Space::Shared => "__shared__",
            Space::Constant => "__constant__",
        }
    }
}

/// Bytes of constant memory a module may declare (CUDA's `__constant__` limit).
pub const CONSTANT_BANK_BYTES: u64 = 64 * 1024;

/// The emulated device address of the constant array named `name` (the symbol the PTX
/// declares and `cuModuleGetGlobal` finds on a GPU). Both sides of the sandbox compute it
/// from the name alone, the kernel's load and the host's copy, so neither needs to tell
/// the other: the FNV-1a hash of the name, in the upper half of the address space (where
/// no global allocation lies) and aligned to 64 KiB (so that an array's bytes never
/// straddle into another's address).
pub const fn constant_address(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    (h | 1 << 63) & !(CONSTANT_BANK_BYTES - 1)
}

/// The element type of an atomic operation: it decides how the bits are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicType {
    /// `unsigned int`
    U32,
    /// `int`
    I32,
    /// `unsigned long long`
    U64,
    /// `float`
    F32,
}

impl AtomicType {
    /// Size in bytes.
    pub fn size(self) -> u8 {
        match self {
            AtomicType::U64 => 8,
            _ => 4,
        }
    }
}

/// An atomic read-modify-write, named as CUDA's `atomicXxx` functions are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomicAdd`
    Add,
    /// `atomicSub`
    Sub,
    /// `atomicMin`
    Min,
    /// `atomicMax`
    Max,
    /// `atomicExch`
    Exch,
    /// `atomicCAS`: `compare` is the expected old value.
    Cas,
    /// `atomicAnd`
    And,
    /// `atomicOr`
    Or,
    /// `atomicXor`
    Xor,
    /// `atomicInc`: `old >= value ? 0 : old + 1`
    Inc,
    /// `atomicDec`: `(old == 0 || old > value) ? value : old - 1`
    Dec,
}

impl AtomicOp {
    /// The CUDA function name, for reports.
    pub fn cuda_name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::Exch => "atomicExch",
            AtomicOp::Cas => "atomicCAS",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Inc => "atomicInc",
            AtomicOp::Dec => "atomicDec",
        }
    }
}

/// Which lane a shuffle reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShuffleKind {
    /// `__shfl_sync`: from lane `arg` of the segment.
    Idx,
    /// `__shfl_up_sync`: from lane `lane - arg`.
    Up,
    /// `__shfl_down_sync`: from lane `lane + arg`.
    Down,
    /// `__shfl_xor_sync`: from lane `lane ^ arg`.
    Xor,
}

/// A warp-level operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpOp {
    /// `__activemask()`: the lanes executing this step. Not a synchronising collective.
    ActiveMask,
    /// `__ballot_sync(mask, pred)`
    Ballot {
        /// Lanes that must take part.
        mask: u32,
        /// This lane's predicate.
        pred: bool,
    },
    /// `__all_sync(mask, pred)`
    All {
        /// Lanes that must take part.
        mask: u32,
        /// This lane's predicate.
        pred: bool,
    },
    /// `__any_sync(mask, pred)`
    Any {
        /// Lanes that must take part.
        mask: u32,
        /// This lane's predicate.
        pred: bool,
    },
    /// `__match_any_sync(mask, value)`
    MatchAny {
        /// Lanes that must take part.
        mask: u32,
        /// This lane's value (32 or 64 bits).
        value: u64,
    },
    /// `__shfl*_sync(mask, value, arg, width)`
    Shuffle {
        /// Lanes that must take part.
        mask: u32,
        /// This lane's value (32 or 64 bits).
        value: u64,
        /// Which shuffle.
        kind: ShuffleKind,
        /// Source lane, delta or xor mask.
        arg: u32,
        /// Segment width: a power of two up to 32.
        width: u32,
    },
    /// `__syncwarp(mask)`
    SyncWarp {
        /// Lanes that must arrive.
        mask: u32,
    },
}

impl WarpOp {
    /// The lanes that must take part, for synchronising collectives.
    pub fn mask(&self) -> Option<u32> {
        match *self {
            WarpOp::ActiveMask => None,
            WarpOp::Ballot { mask, .. }
            | WarpOp::All { mask, .. }
            | WarpOp::Any { mask, .. }
            | WarpOp::MatchAny { mask, .. }
            | WarpOp::Shuffle { mask, .. }
            | WarpOp::SyncWarp { mask } => Some(mask),
        }
    }

    /// The CUDA intrinsic name, for reports.
    pub fn cuda_name(&self) -> &'static str {
        match self {
            WarpOp::ActiveMask => "__activemask",
            WarpOp::Ballot { .. } => "__ballot_sync",
            WarpOp::All { .. } => "__all_sync",
            WarpOp::Any { .. } => "__any_sync",
            WarpOp::MatchAny { .. } => "__match_any_sync",
            WarpOp::Shuffle {
                kind: ShuffleKind::Idx,
                ..
            } => "__shfl_sync",
            WarpOp::Shuffle {
                kind: ShuffleKind::Up,
                ..
            } => "__shfl_up_sync",
            WarpOp::Shuffle {
                kind: ShuffleKind::Down,
                ..
            } => "__shfl_down_sync",
            WarpOp::Shuffle {
                kind: ShuffleKind::Xor,
                ..
            } => "__shfl_xor_sync",
            WarpOp::SyncWarp { .. } => "__syncwarp",
        }
    }
}

/// One device operation a lane parks on.
///
/// Addresses: for [`Space::Global`], `base` is the device address of element 0 of the
/// handle (as `cudaMalloc` would give, 256-byte aligned per allocation); for
/// [`Space::Shared`], `base` is the byte offset of element 0 in the block's shared memory;
/// for [`Space::Constant`], the array's [`constant_address`].
/// `index` counts elements of `size` bytes from `base`; `len` is the handle's length in
/// elements, so an index past it is reported by memcheck with the index the kernel used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A load of `size` bytes (1, 2, 4, 8 or 16).
    Load {
        /// Global or shared.
        space: Space,
        /// Address (global) or offset (shared) of element 0.
        base: u64,
        /// Element index.
        index: u64,
        /// Elements in the handle.
        len: u64,
        /// Bytes per element.
        size: u8,
    },
    /// A store of `size` bytes of `value` (little-endian).
    Store {
        /// Global or shared.
        space: Space,
        /// Address (global) or offset (shared) of element 0.
        base: u64,
        /// Element index.
        index: u64,
        /// Elements in the handle.
        len: u64,
        /// Bytes per element.
        size: u8,
        /// The bits to store.
        value: u128,
    },
    /// An atomic read-modify-write; the lane gets the old value back.
    Atomic {
        /// Global or shared.
        space: Space,
        /// Address (global) or offset (shared) of element 0.
        base: u64,
        /// Element index.
        index: u64,
        /// Elements in the handle.
        len: u64,
        /// How the bits are read.
        ty: AtomicType,
        /// The operation.
        op: AtomicOp,
        /// The operand (the new value for `Cas`).
        value: u64,
        /// The expected old value (`Cas` only).
        compare: u64,
    },
    /// `__syncthreads()`
    Barrier,
    /// A warp-level operation.
    Warp(WarpOp),
}

impl Op {
    /// A short CUDA-flavoured name for reports.
    pub fn describe(&self) -> String {
        match self {
            Op::Load { space, size, .. } => format!("{} read of size {size}", space.cuda_name()),
            Op::Store { space, size, .. } => format!("{} write of size {size}", space.cuda_name()),
            Op::Atomic { space, op, .. } => format!("{} on {}", op.cuda_name(), space.cuda_name()),
            Op::Barrier => "__syncthreads".to_string(),
            Op::Warp(w) => w.cuda_name().to_string(),
        }
    }
}

/// How an [`Op`] crosses the sandbox's boundary: six 64-bit words, the arguments of the
/// one device-call import of a WebAssembly lane (see `crate::wasm`). The `gpu` crate's
/// wasm32 backend encodes with this same code (it includes this file), so both sides
/// agree by construction.
///
/// Word 0 holds the kind (bits 0-7), the space (8-15), the size or atomic type (16-23),
/// the atomic or warp operation (24-31), the shuffle kind (32-39) and a predicate (40);
/// the other words hold addresses, indices, lengths and operands.
pub mod wire {
    use super::*;

    /// The encoded form of an operation.
    pub type Words = [u64; 6];

    const LOAD: u64 = 0;
    const STORE: u64 = 1;
    const ATOMIC: u64 = 2;
    const BARRIER: u64 = 3;
    const WARP: u64 = 4;

    #[inline(always)]
    fn space_code(s: Space) -> u64 {
        match s {
            Space::Global => 0,
            Space::Shared => 1,
            Space::Constant => 2,
        }
    }
    fn space_of(c: u64) -> Option<Space> {
        match c {
            0 => Some(Space::Global),
            1 => Some(Space::Shared),
            2 => Some(Space::Constant),
            _ => None,
        }
    }
    /// The space of a store or an atomic: constant memory is read-only, so words that
    /// write it encode no operation the device API makes.
    fn writable(s: Option<Space>) -> Option<Space> {
        s.filter(|&s| s != Space::Constant)
    }
    // The tables below list each enum in declaration order, so that `x as u64` (its
    // discriminant, what `encode` sends: no search in the sandbox's hot path) indexes them.
    pub(super) const TYPES: [AtomicType; 4] = [
        AtomicType::U32,
        AtomicType::I32,
        AtomicType::U64,
        AtomicType::F32,
    ];
    pub(super) const OPS: [AtomicOp; 11] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::Exch,
        AtomicOp::Cas,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Inc,
        AtomicOp::Dec,
    ];
    const SHUFFLES: [ShuffleKind; 4] = [
        ShuffleKind::Idx,
        ShuffleKind::Up,
        ShuffleKind::Down,
        ShuffleKind::Xor,
    ];

    /// The words of `op`. Inlined: at a device call the operation's kind is known, and
    /// the sandbox's lane then computes only the words that vary.
    #[inline(always)]
    pub fn encode(op: &Op) -> Words {
        match *op {
            Op::Load {
                space,
                base,
                index,
                len,
                size,
            } => [
                LOAD | space_code(space) << 8 | (size as u64) << 16,
                base,
                index,
                len,
                0,
                0,
            ],
            Op::Store {
                space,
                base,
                index,
                len,
                size,
                value,
            } => [
                STORE | space_code(space) << 8 | (size as u64) << 16,
                base,
                index,
                len,
                value as u64,
                (value >> 64) as u64,
            ],
            Op::Atomic {
                space,
                base,
                index,
                len,
                ty,
                op,
                value,
                compare,
            } => [
                ATOMIC | space_code(space) << 8 | (ty as u64) << 16 | (op as u64) << 24,
                base,
                index,
                len,
                value,
                compare,
            ],
            Op::Barrier => [BARRIER, 0, 0, 0, 0, 0],
            Op::Warp(w) => {
                let (code, mask, value, kind, arg, width, pred) = match w {
                    WarpOp::ActiveMask => (0, 0, 0, 0, 0, 0, false),
                    WarpOp::Ballot { mask, pred } => (1, mask, 0, 0, 0, 0, pred),
                    WarpOp::All { mask, pred } => (2, mask, 0, 0, 0, 0, pred),
                    WarpOp::Any { mask, pred } => (3, mask, 0, 0, 0, 0, pred),
                    WarpOp::MatchAny { mask, value } => (4, mask, value, 0, 0, 0, false),
                    WarpOp::Shuffle {
                        mask,
                        value,
                        kind,
                        arg,
                        width,
                    } => (5, mask, value, kind as u64, arg, width, false),
                    WarpOp::SyncWarp { mask } => (6, mask, 0, 0, 0, 0, false),
                };
                [
                    WARP | code << 24 | kind << 32 | (pred as u64) << 40,
                    mask as u64,
                    value,
                    arg as u64,
                    width as u64,
                    0,
                ]
            }
        }
    }

    /// The operation of `w`, or `None` for words no [`encode`] produces.
    ///
    /// Always inlined: the scheduler decodes a lane's words as the lane parks, into the
    /// lane's request, and a call returned the `Op` through a temporary that was copied
    /// at once in other widths than it was written, a copy the CPU could not forward
    /// from its pending stores (see `lane::Parked`).
    #[inline(always)]
    pub fn decode(w: &Words) -> Option<Op> {
        let field = |shift: u32| (w[0] >> shift) & 0xff;
        let space = space_of(field(8));
        Some(match field(0) {
            LOAD => Op::Load {
                space: space?,
                base: w[1],
                index: w[2],
                len: w[3],
                size: valid_size(field(16))?,
            },
            STORE => Op::Store {
                space: writable(space)?,
                base: w[1],
                index: w[2],
                len: w[3],
                size: valid_size(field(16))?,
                value: w[4] as u128 | (w[5] as u128) << 64,
            },
            ATOMIC => Op::Atomic {
                space: writable(space)?,
                base: w[1],
                index: w[2],
                len: w[3],
                ty: *TYPES.get(field(16) as usize)?,
                op: *OPS.get(field(24) as usize)?,
                value: w[4],
                compare: w[5],
            },
            BARRIER => Op::Barrier,
            WARP => {
                let mask = w[1] as u32;
                let pred = (w[0] >> 40) & 1 == 1;
                Op::Warp(match field(24) {
                    0 => WarpOp::ActiveMask,
                    1 => WarpOp::Ballot { mask, pred },
                    2 => WarpOp::All { mask, pred },
                    3 => WarpOp::Any { mask, pred },
                    4 => WarpOp::MatchAny { mask, value: w[2] },
                    5 => WarpOp::Shuffle {
                        mask,
                        value: w[2],
                        kind: *SHUFFLES.get(field(32) as usize)?,
                        arg: w[3] as u32,
                        width: w[4] as u32,
                    },
                    6 => WarpOp::SyncWarp { mask },
                    _ => return None,
                })
            }
            _ => return None,
        })
    }

    fn valid_size(s: u64) -> Option<u8> {
        matches!(s, 1 | 2 | 4 | 8 | 16).then_some(s as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::wire::{decode, encode};
    use super::*;

    #[test]
    fn constant_addresses_are_aligned_distinct_and_apart_from_global_memory() {
        let a = constant_address("BIN_OF");
        let b = constant_address("BIN_OF_");
        assert_ne!(a, b);
        assert_eq!(a % CONSTANT_BANK_BYTES, 0);
        assert!(
            a >= 1 << 63,
            "global allocations start at 1 << 36 and stay below 2^63"
        );
        assert_eq!(
            a,
            constant_address("BIN_OF"),
            "a function of the name alone"
        );
    }

    #[test]
    fn every_operation_crosses_the_sandbox_unchanged() {
        let mut ops = vec![Op::Barrier, Op::Warp(WarpOp::ActiveMask)];
        for space in [Space::Global, Space::Shared] {
            for size in [1u8, 2, 4, 8, 16] {
                ops.push(Op::Load {
                    space,
                    base: 0x1000_0000_0100,
                    index: 7,
                    len: 99,
                    size,
                });
                ops.push(Op::Store {
                    space,
                    base: 64,
                    index: 3,
                    len: 4,
                    size,
                    value: u128::MAX - 5,
                });
            }
            for ty in wire::TYPES {
                for op in wire::OPS {
                    ops.push(Op::Atomic {
                        space,
                        base: 8,
                        index: 1,
                        len: 2,
                        ty,
                        op,
                        value: u64::MAX,
                        compare: 42,
                    });
                }
            }
        }
        for pred in [false, true] {
            ops.push(Op::Warp(WarpOp::Ballot { mask: 0xffff, pred }));
            ops.push(Op::Warp(WarpOp::All { mask: 3, pred }));
            ops.push(Op::Warp(WarpOp::Any {
                mask: u32::MAX,
                pred,
            }));
        }
        ops.push(Op::Warp(WarpOp::MatchAny {
            mask: 5,
            value: 1 << 40,
        }));
        ops.push(Op::Warp(WarpOp::SyncWarp { mask: 0xf0f0 }));
        for kind in [
            ShuffleKind::Idx,
            ShuffleKind::Up,
            ShuffleKind::Down,
            ShuffleKind::Xor,
        ] {
            ops.push(Op::Warp(WarpOp::Shuffle {
                mask: u32::MAX,
                value: 9,
                kind,
                arg: 3,
                width: 16,
            }));
        }
        for op in ops {
            assert_eq!(decode(&encode(&op)), Some(op), "{op:?}");
        }
        for size in [1u8, 2, 4, 8, 16] {
            let load = Op::Load {
                space: Space::Constant,
                base: constant_address("BIN_OF"),
                index: 3,
                len: 256,
                size,
            };
            assert_eq!(decode(&encode(&load)), Some(load));
        }
        assert_eq!(decode(&[99, 0, 0, 0, 0, 0]), None, "an unknown kind");
        let store_const = [1 | 2 << 8 | 4 << 16, 0, 0, 1, 0, 0];
        assert_eq!(decode(&store_const), None, "a store to constant memory");
        let atomic_const = [2 | 2 << 8, 0, 0, 1, 0, 0];
        assert_eq!(decode(&atomic_const), None, "an atomic on constant memory");
        assert_eq!(decode(&[3 << 16, 0, 0, 0, 0, 0]), None, "a load of 3 bytes");
    }
}
