use gpu::prelude::*;
use gpu_host::{Device, LaunchConfig};

#[kernel]
fn naive(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        let b = data.load(i);
        let v = histo.load(b);
        histo.store(b, v + 1);
    }
}

#[kernel]
fn atomic(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let i = thread::index_1d();
    if i < data.len() {
        histo.atomic_add(data.load(i), 1);
    }
}

#[kernel]
fn warp_agg(data: GlobalSlice<u32>, histo: GlobalSlice<u32>) {
    let bins = shared_array![u32; 8];
    let t = thread::thread_idx_x();
    if t < 8 {
        bins.store(t, 0);
    }
    thread::sync_threads();
    let i = thread::index_1d();
    let v = if i < data.len() {
        data.load(i)
    } else {
        u32::MAX
    };
    let peers = warp::warp_match_any(warp::FULL_MASK, v);
    if v != u32::MAX && warp::lane_id() == peers.trailing_zeros() {
        bins.atomic_add(v, peers.count_ones());
    }
    thread::sync_threads();
    if t < 8 {
        histo.atomic_add(t, bins.load(t));
    }
}

#[test]
fn smoke() {
    let data: Vec<u32> = (0..1000u32).map(|i| (i * 7 + i / 3) % 8).collect();
    let mut expect = vec![0u32; 8];
    for &d in &data {
        expect[d as usize] += 1;
    }
    for (name, k) in [
        ("naive", &naive::KERNEL),
        ("atomic", &atomic::KERNEL),
        ("warp_agg", &warp_agg::KERNEL),
    ] {
        let mut dev = Device::emulator();
        let d = dev.upload(&data).unwrap();
        let h = dev.alloc::<u32>(8).unwrap();
        let r = dev
            .launch(k, LaunchConfig::linear(4, 256), (d.slice(), h.slice()))
            .unwrap();
        let got = dev.download(&h).unwrap();
        println!("{name}: {got:?} {:?}", r.counters());
        for f in r.findings() {
            println!("  {f}");
        }
        if name != "naive" {
            assert_eq!(got, expect);
        }
    }
}
