use gpu::prelude::*;

fn helper() -> SharedArray<u32, 4> {
    shared_array![u32; 4]
}

fn main() {
    let _ = helper;
}
