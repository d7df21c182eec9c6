use gpu_macros::kernel;

#[kernel]
fn pair((a, b): (u32, u32), out: GlobalSlice<u32>) {
    out.store(a, b);
}

fn main() {}
