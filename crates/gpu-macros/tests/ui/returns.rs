use gpu_macros::kernel;

#[kernel]
fn answer(out: GlobalSlice<u32>) -> u32 {
    out.load(0)
}

fn main() {}
