//! Bypasses of 5.6's technique checks, as a motivated student would write them: a
//! kernel with every counter of the technique (the loads, one shared atomic per byte, one
//! commit per nonzero bin and block, two barriers) that does not count where it loads.
//! It must fail as the wrong technique, naming the thread that broke the chain (issue 37;
//! it passed at 1123df6).

use ch05::checks::check_with;
use ch05::kernels::{Kernels, REFERENCE};
use course::Status;
use gpu::prelude::*;
use solutions::ch05::BINS;

/// Kernel 3 with its loads, one shared atomic per byte (of zero, on bin 0), two barriers
/// and one commit per nonzero bin: but each thread hands its word (and tail byte) to
/// thread 0 through shared memory, and thread 0 counts the block's bytes in a `Vec`.
#[kernel]
fn shared_counted_by_thread_0(data: GlobalSlice<u8>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; BINS as usize];
    let stash = shared_array![u32; 1024];
    let tail = shared_array![u32; 4];
    let t = thread::thread_idx_x();
    if t == 0 {
        bins.store(0, 0);
    }
    let words = data.cast::<u32>();
    let i = thread::index_1d();
    if i < words.len() {
        stash.store(t, words.load(i));
    }
    let rest = data.len() - words.len() * 4;
    if i < rest {
        tail.store(i, data.load(words.len() * 4 + i) as u32);
    }
    thread::sync_threads();
    if i < words.len() {
        for _ in 0..4 {
            bins.atomic_add(0, 0);
        }
    }
    if i < rest {
        bins.atomic_add(0, 0);
    }
    thread::sync_threads();
    if t == 0 {
        let mut counts = vec![0u32; BINS as usize];
        let first = thread::block_idx_x() * thread::block_dim_x();
        for k in 0..thread::block_dim_x() {
            if first + k < words.len() {
                let w = stash.load(k);
                for s in 0..4 {
                    counts[((w >> (8 * s)) & 0xff) as usize] += 1;
                }
            }
            if first + k < rest {
                counts[tail.load(first + k) as usize] += 1;
            }
        }
        for (bin, &c) in counts.iter().enumerate() {
            if c > 0 {
                histo.atomic_add(bin as u32, c);
            }
        }
    }
}

#[test]
fn counting_the_block_in_one_thread_behind_dummy_atomics_is_the_wrong_technique() {
    let k = Kernels {
        histo_shared: shared_counted_by_thread_0::KERNEL,
        ..REFERENCE
    };
    let out = chapter::check_tests::run_on_emulator(check_with, "5.6", k);
    assert_eq!(
        out.status,
        Status::WrongTechnique,
        "{:?}: {}\n{}",
        out.status,
        out.reason,
        out.details.join("\n")
    );
    // Its dummy `atomic_add(0, 0)`s change nothing, so the counters show no shared atomic
    // at all (before no-ops were counted apart, the follower caught it: "thread 0 of
    // block ..., issued by the thread that loaded it").
    for says in [
        "0 shared atomics",
        "every byte is counted in the block's shared bins",
    ] {
        assert!(
            out.reason.contains(says),
            "`{}` does not say `{says}`",
            out.reason
        );
    }
    chapter::check_tests::assert_hint_answers(&ch05::CHAPTER, &out);
}
