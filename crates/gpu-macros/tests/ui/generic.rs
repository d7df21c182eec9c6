use gpu_macros::kernel;

#[kernel]
fn fill<T: DeviceValue>(out: GlobalSlice<T>, v: T) {
    out.store(0, v);
}

fn main() {}
