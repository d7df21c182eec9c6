//! Timing from a cold L2: the read-only kernel every timed operation runs first.
//!
//! A benchmark that runs a kernel again and again over one input smaller than the L2
//! (50 MiB on an H100) reads it from the cache from the second run on: the bench's read
//! kernel "read" 16 MiB in 6.0 µs that way, and 9.8 µs from memory
//! (`notes/cold-l2-h100-2026-11-25.md`). So before each timed operation, outside its
//! events, [`CudaBackend::timed`](super::CudaBackend) runs this kernel over a buffer of
//! twice the L2's size: every line the operation will touch is gone from the cache.
//!
//! The flush *reads*. Writing over the buffer (a `cuMemsetD8Async`) would leave the L2
//! full of dirty lines, and the timed kernel would pay for writing them back to memory
//! as its own reads evict them (in a run made that way the read kernel took 12.6 µs at
//! 16 MiB and 3 % more time at 1 GiB). Read, the lines are clean and are dropped for free.
//!
//! The kernel is PTX written here (the host crate builds no device code): a grid-stride
//! loop of 16-byte loads that XORs what it reads and stores the result only if it equals
//! a constant that a zeroed buffer never gives, so that the loads cannot be removed.

/// The flush kernel's entry name.
pub(super) const ENTRY: &str = "gpu_host_l2_flush";

/// The flush kernel: `gpu_host_l2_flush(src: *const u32x4, vectors: u64, sink: *mut u32)`.
/// PTX 7.0 for `sm_50` and later (the driver compiles it for the device at load).
pub(super) const PTX: &str = r#".version 7.0
.target sm_50
.address_size 64

.visible .entry gpu_host_l2_flush(
    .param .u64 p_src,
    .param .u64 p_vectors,
    .param .u64 p_sink
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<10>;

    ld.param.u64 %rd1, [p_src];
    ld.param.u64 %rd2, [p_vectors];
    ld.param.u64 %rd3, [p_sink];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd6, %r4, %r2;
    mov.u32 %r5, 0;
LOOP:
    setp.ge.u64 %p1, %rd4, %rd2;
    @%p1 bra DONE;
    shl.b64 %rd7, %rd4, 4;
    add.u64 %rd8, %rd1, %rd7;
    ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd8];
    xor.b32 %r5, %r5, %r6;
    xor.b32 %r5, %r5, %r7;
    xor.b32 %r5, %r5, %r8;
    xor.b32 %r5, %r5, %r9;
    add.u64 %rd4, %rd4, %rd6;
    bra LOOP;
DONE:
    setp.ne.u32 %p2, %r5, -1640531527;
    @%p2 bra END;
    st.global.u32 [%rd3], %r5;
END:
    ret;
}
"#;

/// Threads per block of the flush kernel.
pub(super) const BLOCK: u32 = 256;

/// Blocks per SM of the flush kernel: enough loads in flight to read at the memory's
/// speed (its time is not measured, only spent).
pub(super) const BLOCKS_PER_SM: u32 = 8;

/// The bytes the flush reads: twice the L2, at least 1 MiB, a whole number of 16-byte
/// vectors.
pub(super) fn flush_bytes(l2_bytes: usize) -> usize {
    (2 * l2_bytes).max(1 << 20).next_multiple_of(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flush_reads_twice_the_l2_in_whole_vectors() {
        assert_eq!(flush_bytes(50 << 20), 100 << 20);
        assert_eq!(flush_bytes(0), 1 << 20);
        assert_eq!(flush_bytes((1 << 20) + 1) % 16, 0);
        assert!(PTX.contains(&format!(".entry {ENTRY}(")));
        // The constant the XOR is compared with is 0x9e3779b9 as a signed 32-bit
        // immediate: a zeroed buffer never gives it.
        assert_eq!(0x9e37_79b9_u32 as i32, -1_640_531_527);
    }
}
