// 9.9's consume_tiles as the stub and the reference had it before 2026-11-27 (f9d2f53): it
// counted bins and took num_bins. A student's answer written then: the class bench and the
// attack tests splice it into a submission to see the 'signature changed' verdict.
pub fn consume_tiles(data: GlobalSlice<u8>, bins: DynamicShared<u32>, num_bins: u32) {
    // STUDENT-BEGIN 9.9
    let lane = warp::lane_id();
    let count = |byte: u8| {
        bins.atomic_add(
            byte_bin(byte, num_bins) * FastestPolicy::LANE_COPIES + lane,
            1,
        );
    };
    let count_vector = |U32x4(words): U32x4| {
        for word in words {
            for k in 0..4 {
                count((word >> (8 * k)) as u8);
            }
        }
    };
    let vectors = data.cast::<U32x4>();
    let n = vectors.len();
    let stride = thread::grid_stride_x();
    let mut v = thread::index_1d();
    // `n - v > 3 * stride` (when `v < n`): the fourth vector is in range, no
    // overflow.
    while v < n && n - v > 3 * stride {
        let a = vectors.load(v);
        let b = vectors.load(v + stride);
        let c = vectors.load(v + 2 * stride);
        let d = vectors.load(v + 3 * stride);
        count_vector(a);
        count_vector(b);
        count_vector(c);
        count_vector(d);
        v += 4 * stride;
    }
    while v < n {
        count_vector(vectors.load(v));
        v += stride;
    }
    let mut i = n * FastestPolicy::VEC_BYTES + thread::index_1d();
    while i < data.len() {
        count(data.load(i));
        i += stride;
    }
    // STUDENT-END
}
