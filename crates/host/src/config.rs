//! Launch configurations: `<<<grid, block, shared>>>`.

pub use gpu::thread::Dim3;

/// The shape of a launch, as CUDA C's `<<<grid, block, dynamic_shared_bytes>>>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes (on top of the kernel's `shared_array!`s).
    pub dynamic_shared_bytes: u32,
    /// Opt-in maximum of shared memory per block (`cudaFuncAttributeMaxDynamicSharedMemorySize`);
    /// `None` keeps CUDA's default limit of 48 KiB.
    pub max_shared_bytes: Option<u32>,
}

fn dim(x: u32, y: u32, z: u32) -> Dim3 {
    Dim3 { x, y, z }
}

impl LaunchConfig {
    /// `<<<grid, block>>>` in one dimension.
    pub fn linear(grid: u32, block: u32) -> Self {
        LaunchConfig {
            grid: dim(grid, 1, 1),
            block: dim(block, 1, 1),
            dynamic_shared_bytes: 0,
            max_shared_bytes: None,
        }
    }

    /// `<<<dim3(gx, gy, gz), dim3(bx, by, bz)>>>`.
    pub fn dims(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Self {
        LaunchConfig {
            grid: dim(grid.0, grid.1, grid.2),
            block: dim(block.0, block.1, block.2),
            dynamic_shared_bytes: 0,
            max_shared_bytes: None,
        }
    }

    /// With `bytes` of dynamic shared memory per block.
    pub fn with_shared(mut self, bytes: u32) -> Self {
        self.dynamic_shared_bytes = bytes;
        self
    }

    /// Opting in to more than 48 KiB of shared memory per block.
    pub fn with_max_shared(mut self, bytes: u32) -> Self {
        self.max_shared_bytes = Some(bytes);
        self
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.x as u64 * self.block.y as u64 * self.block.z as u64
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.x as u64 * self.grid.y as u64 * self.grid.z as u64
    }
}
