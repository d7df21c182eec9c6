//! Device memory of the emulator: global allocations and a block's shared memory.
//!
//! Global allocations get device addresses the way `cudaMalloc` gives them: 256-byte
//! aligned (here each allocation starts on its own 64 GiB boundary, so an address names
//! its allocation). Sector counts depend on these addresses, so they are deterministic.
//! Shared memory is one byte arena per block, poison-filled rather than zeroed, with a
//! written-byte map for initcheck.

/// Bits of an address that are the offset inside an allocation.
const SLOT_BITS: u32 = 36;
/// The byte every fresh shared-memory byte holds: `0xCDCDCDCD` as a `u32`.
pub const SHARED_POISON: u8 = 0xCD;

/// All global allocations of one device, and its constant arrays.
#[derive(Default, Debug)]
pub struct GlobalMemory {
    slots: Vec<Option<Allocation>>,
    /// Constant arrays (`__constant__`) the host set, by their address
    /// ([`constant_address`](crate::op::constant_address)): their name and bytes.
    constants: std::collections::BTreeMap<u64, (String, Vec<u8>)>,
    /// Set when a launch that owned this memory timed out and could not return it.
    pub(crate) lost: bool,
}

#[derive(Debug)]
pub(crate) struct Allocation {
    pub(crate) bytes: Vec<u8>,
    /// Whether a kernel ever plain-stored here (so loads must consult hazard tracking).
    pub(crate) stored: bool,
}

impl GlobalMemory {
    /// A device with no allocations.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates `bytes` zeroed bytes and returns the device address of the first.
    pub fn alloc(&mut self, bytes: usize) -> u64 {
        let slot = match self.slots.iter().position(Option::is_none) {
            Some(s) => s,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        self.slots[slot] = Some(Allocation {
            bytes: vec![0; bytes],
            stored: false,
        });
        ((slot as u64) + 1) << SLOT_BITS
    }

    /// Frees the allocation that starts at `addr`. Returns false if there is none.
    pub fn free(&mut self, addr: u64) -> bool {
        match self.slot_of(addr) {
            Some(s) if addr & ((1 << SLOT_BITS) - 1) == 0 => self.slots[s].take().is_some(),
            _ => false,
        }
    }

    fn slot_of(&self, addr: u64) -> Option<usize> {
        let s = (addr >> SLOT_BITS).checked_sub(1)? as usize;
        self.slots.get(s)?.as_ref().map(|_| s)
    }

    /// The bytes of the allocation that starts at `addr`.
    pub fn bytes(&self, addr: u64) -> Option<&[u8]> {
        let s = self.slot_of(addr)?;
        self.slots[s].as_ref().map(|a| a.bytes.as_slice())
    }

    /// The bytes of the allocation that starts at `addr`, writable.
    pub fn bytes_mut(&mut self, addr: u64) -> Option<&mut [u8]> {
        let s = self.slot_of(addr)?;
        self.slots[s].as_mut().map(|a| a.bytes.as_mut_slice())
    }

    /// Sets the constant array `name` to `bytes` (`cudaMemcpyToSymbol`), as the GPU's
    /// module holds it from then on: every later launch reads these bytes. Fails, saying
    /// why, when the array would pass the 64 KiB a module has, or when another name was
    /// set at the same address (a hash collision of the two names).
    pub fn set_constant(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        use crate::op::{CONSTANT_BANK_BYTES, constant_address};
        if bytes.len() as u64 > CONSTANT_BANK_BYTES {
            return Err(format!(
                "constant array `{name}`: {} bytes; constant memory holds {CONSTANT_BANK_BYTES}",
                bytes.len()
            ));
        }
        let addr = constant_address(name);
        if let Some((other, _)) = self.constants.get(&addr)
            && other != name
        {
            return Err(format!(
                "constant arrays `{other}` and `{name}` have the same emulated address; rename one"
            ));
        }
        self.constants
            .insert(addr, (name.to_string(), bytes.to_vec()));
        Ok(())
    }

    /// The bytes of the constant array at `addr`, as the host last set them.
    pub fn constant(&self, addr: u64) -> Option<&[u8]> {
        self.constants.get(&addr).map(|(_, b)| b.as_slice())
    }

    /// Was this memory lost with a launch that timed out?
    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// The allocation holding `addr..addr+size`, and the offset of `addr` in it.
    pub(crate) fn locate(&mut self, addr: u64, size: u64) -> Option<(&mut Allocation, usize)> {
        let s = self.slot_of(addr)?;
        let off = (addr & ((1 << SLOT_BITS) - 1)) as usize;
        let a = self.slots[s].as_mut()?;
        (off as u64 + size <= a.bytes.len() as u64).then_some((a, off))
    }

    /// Marks every allocation as not stored to, before a launch.
    pub(crate) fn reset_store_marks(&mut self) {
        for a in self.slots.iter_mut().flatten() {
            a.stored = false;
        }
    }
}

/// Reads `size` little-endian bytes (1, 2, 4, 8 or 16; one load of that width, which
/// the CPU forwards from a recent store, unlike a byte-wise copy into a wider buffer).
#[inline]
pub(crate) fn read_le(bytes: &[u8], off: usize, size: usize) -> u128 {
    fn get<const N: usize>(bytes: &[u8], off: usize) -> [u8; N] {
        bytes[off..off + N].try_into().expect("invariant: N bytes")
    }
    match size {
        1 => bytes[off] as u128,
        2 => u16::from_le_bytes(get(bytes, off)) as u128,
        4 => u32::from_le_bytes(get(bytes, off)) as u128,
        8 => u64::from_le_bytes(get(bytes, off)) as u128,
        16 => u128::from_le_bytes(get(bytes, off)),
        _ => {
            let mut buf = [0u8; 16];
            buf[..size].copy_from_slice(&bytes[off..off + size]);
            u128::from_le_bytes(buf)
        }
    }
}

/// Writes `size` little-endian bytes.
#[inline]
pub(crate) fn write_le(bytes: &mut [u8], off: usize, size: usize, v: u128) {
    match size {
        1 => bytes[off] = v as u8,
        2 => bytes[off..off + 2].copy_from_slice(&(v as u16).to_le_bytes()),
        4 => bytes[off..off + 4].copy_from_slice(&(v as u32).to_le_bytes()),
        8 => bytes[off..off + 8].copy_from_slice(&(v as u64).to_le_bytes()),
        _ => bytes[off..off + size].copy_from_slice(&v.to_le_bytes()[..size]),
    }
}

/// One block's shared memory, with the initcheck map.
pub(crate) struct SharedMemory {
    pub(crate) bytes: Vec<u8>,
    pub(crate) written: Vec<bool>,
}

impl SharedMemory {
    pub(crate) fn new(size: usize) -> Self {
        SharedMemory {
            bytes: vec![SHARED_POISON; size],
            written: vec![false; size],
        }
    }

    /// Refills for the next block.
    pub(crate) fn reset(&mut self) {
        self.bytes.fill(SHARED_POISON);
        self.written.fill(false);
    }
}
