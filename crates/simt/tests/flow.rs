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
            .find(|e| e.kind == FlowKind::Load)
            .expect("the thread loaded its element");
        assert_eq!(
            (load.space, load.addr, load.size, load.value),
            (Space::Global, data_addr + 4 * i as u64, 4, v as u64)
        );
        let count = mine
            .iter()
            .find(|e| e.space == Space::Shared)
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
fn no_flow_is_recorded_unless_asked_and_the_counters_are_the_same() {
    let (off, ..) = launch(false);
    let (on, ..) = launch(true);
    assert!(off.flow.is_none());
    assert_eq!(off.counters, on.counters);
}
