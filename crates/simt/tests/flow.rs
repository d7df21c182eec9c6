//! Flows: an opt-in record of which thread loaded which global bytes and which atomics it
//! issued, for the course's checks that follow the data (`simt::flow`).

mod common;

use common::private_histo;

use gpu_host::{Config, Device, LaunchConfig};
use simt::flow::FlowKind;
use simt::{AtomicOp, AtomicType, Space};

fn launch(record_flow: bool) -> (simt::LaunchReport, u64, u64, Vec<u32>) {
    let mut dev = Device::emulator_with(Config {
        watchdog: None,
        record_flow,
        ..Config::default()
    });
    let data: Vec<u32> = (0..100u32).map(|i| i * 5 + 1).collect();
    let d = dev.upload(&data).unwrap();
    let h = dev.alloc::<u32>(8).unwrap();
    dev.fill(&h, 0).unwrap();
    let r = dev
        .launch(
            &private_histo::KERNEL,
            LaunchConfig::linear(2, 64),
            (d.slice(), h.slice()),
        )
        .unwrap();
    let (da, ha) = (d.slice().addr(), h.slice().addr());
    (r.emulator.unwrap(), da, ha, data)
}

#[test]
fn a_flow_follows_each_thread_from_its_load_to_its_atomics() {
    let (report, data_addr, histo_addr, data) = launch(true);
    let flow = report.flow.as_ref().expect("asked for");
    assert!(!flow.truncated);
    // Every element: loaded by its own thread, then counted by that thread's shared
    // atomic on bin value % 8 with operand 1.
    for (i, &v) in data.iter().enumerate() {
        let (block, thread) = ((i / 64) as u64, (i % 64) as u32);
        let mine: Vec<_> = flow
            .events
            .iter()
            .filter(|e| e.block == block && e.thread == thread)
            .collect();
        let load = mine
            .iter()
            .find(|e| e.kind == FlowKind::Load && e.space == Space::Global)
            .expect("the thread loaded its element");
        assert_eq!(
            (load.space, load.addr, load.size, load.value),
            (Space::Global, data_addr + 4 * i as u64, 4, v as u64)
        );
        let count = mine
            .iter()
            .find(|e| e.space == Space::Shared && matches!(e.kind, FlowKind::Atomic(..)))
            .expect("the thread counted it");
        assert_eq!(count.kind, FlowKind::Atomic(AtomicOp::Add, AtomicType::U32));
        assert_eq!((count.addr - count.base) / 4, (v % 8) as u64);
        assert_eq!(count.value, 1);
    }
    // The commits: 8 global atomics per block, their operands the block's bins.
    for block in 0..2u64 {
        let commits: u64 = flow
            .events
            .iter()
            .filter(|e| e.block == block && e.space == Space::Global && e.base == histo_addr)
            .map(|e| e.value)
            .sum();
        let elements = if block == 0 { 64 } else { 36 };
        assert_eq!(commits, elements, "block {block} commits what it counted");
    }
}

#[test]
fn a_flow_holds_the_shared_counters_stores_and_reads_with_their_lines() {
    let (report, ..) = launch(true);
    let flow = report.flow.as_ref().expect("asked for");
    // Threads 0..8 of each block zero their word, then read it back to commit it: the
    // store of 0 and a load of the bin's count, from the kernel's own lines.
    for block in 0..2u64 {
        for t in 0..8u32 {
            let mine: Vec<_> = flow
                .events
                .iter()
                .filter(|e| e.block == block && e.thread == t && e.space == Space::Shared)
                .collect();
            let store = mine
                .iter()
                .find(|e| e.kind == FlowKind::Store)
                .expect("zeroed");
            assert_eq!(
                (store.addr - store.base, store.size, store.value),
                (4 * t as u64, 4, 0)
            );
            let read = mine
                .iter()
                .find(|e| e.kind == FlowKind::Load)
                .expect("read back");
            assert_eq!(read.addr - read.base, 4 * t as u64);
            assert!(read.line > store.line, "the read comes later in the kernel");
        }
    }
}

#[gpu::kernel]
fn votes(out: gpu::GlobalSlice<u32>) {
    use gpu::prelude::*;
    let lane = warp::lane_id();
    let peers = warp::warp_match_any(warp::FULL_MASK, lane % 4);
    let odd = warp::warp_vote_ballot(warp::FULL_MASK, lane % 2 == 1);
    let next = warp::warp_shuffle_down(warp::FULL_MASK, lane, 1, 32);
    out.store(lane, peers ^ odd ^ next);
}

#[test]
fn a_flow_names_each_collective_with_the_lane_s_operand() {
    use simt::flow::Collective;
    let mut dev = Device::emulator_with(Config {
        watchdog: None,
        record_flow: true,
        ..Config::default()
    });
    let out = dev.alloc::<u32>(32).unwrap();
    let r = dev
        .launch(&votes::KERNEL, LaunchConfig::linear(1, 32), (out.slice(),))
        .unwrap();
    let flow = r.emulator.unwrap().flow.unwrap();
    let of = |lane: u32, c: Collective| {
        flow.events
            .iter()
            .find(|e| e.thread == lane && e.kind == FlowKind::Warp(c))
            .map(|e| e.value)
    };
    for lane in 0..32u32 {
        assert_eq!(of(lane, Collective::MatchAny), Some((lane % 4) as u64));
        assert_eq!(of(lane, Collective::Ballot), Some((lane % 2) as u64));
        assert_eq!(
            of(lane, Collective::Shuffle(simt::ShuffleKind::Down)),
            Some(lane as u64)
        );
    }
    assert_eq!(Collective::MatchAny.cuda_name(), "__match_any_sync");
}

#[test]
fn no_flow_is_recorded_unless_asked_and_the_counters_are_the_same() {
    let (off, ..) = launch(false);
    let (on, ..) = launch(true);
    assert!(off.flow.is_none());
    assert_eq!(off.counters, on.counters);
}
