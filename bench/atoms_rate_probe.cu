// atoms_rate_probe.cu: is a byte histogram at 16 MiB bound by the shared atomics?
//
// The performance issue asks 9.9 for at most 1.25x the read kernel's time at 16 MiB; it
// takes about 1.66x. One shared atomic per byte is 16 Mi atomics, about 127 K per SM.
// This probe measures, on one GPU, in one run, at 1 to 64 MiB:
//
//   read    the read kernel: 16-byte loads, four in flight per thread, nothing counted;
//   atoms   the shared atomics alone: each thread makes its share of the bytes from a
//           register hash (no global load) and adds 1 to bins[byte * 32 + lane] (a column
//           per lane: conflict-free, as 9.9 lays its counters out), then commits;
//   fused   a CUDA C version of 9.9's design: 16-byte loads, four in flight, one shared
//           atomic per byte into the lane's column, zeroing and commit included.
//
// each on several grids (blocks per SM x threads per block), medians of 25 event-timed
// launches after a warm-up; every histogram checked (atoms: its total; fused: every bin
// against the CPU's). If `atoms` alone takes more than 1.25x `read` at some size, no
// design with one shared atomic per byte meets the target there.
//
//   nvcc -O3 -arch=sm_90 -o atoms_rate_probe atoms_rate_probe.cu && ./atoms_rate_probe
//   ./atoms_rate_probe once       (16 MiB, each launch once: for Nsight Compute)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,               \
                    cudaGetErrorString(e_));                                         \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

constexpr int BINS = 256;
constexpr int COLUMNS = 32;
constexpr int SHARED = BINS * COLUMNS * 4;  // 32 KiB: a column of counters per lane

__global__ void read_kernel(const uint4* __restrict__ in, size_t n16, unsigned* out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = in[i + j * stride];
#pragma unroll
        for (int j = 0; j < 4; j++) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
    }
    for (; i < n16; i += stride) {
        uint4 v = in[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) out[0] = acc;  // never, but the loads must stay
}

__device__ __forceinline__ void zero_columns(unsigned* s) {
    for (int i = threadIdx.x; i < BINS * COLUMNS; i += blockDim.x) s[i] = 0;
    __syncthreads();
}

// Bin b's 32 columns, read with a rotation so that a warp's 32 bins hit 32 banks.
__device__ __forceinline__ void commit_columns(const unsigned* s, unsigned* histo) {
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
#pragma unroll 8
        for (int l = 0; l < COLUMNS; l++) sum += s[b * COLUMNS + ((l + b) & 31)];
        if (sum) atomicAdd(&histo[b], sum);
    }
}

__device__ __forceinline__ void count_word(unsigned* s, unsigned w, int lane) {
#pragma unroll
    for (int k = 0; k < 4; k++) atomicAdd(&s[((w >> (8 * k)) & 255) * COLUMNS + lane], 1u);
}

// `bytes` bytes in all (a multiple of 4), spread evenly over the grid's threads.
__global__ void atoms_kernel(size_t bytes, unsigned* histo) {
    extern __shared__ unsigned s[];
    zero_columns(s);
    int lane = threadIdx.x & 31;
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // The first `bytes / 4 % threads` threads take one word more: `bytes` in all.
    size_t words = bytes / 4 / threads + (t < bytes / 4 % threads ? 1 : 0);
    unsigned x = (unsigned)t * 2654435761u + 0x2545f491u;
    for (size_t k = 0; k < words; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        count_word(s, x, lane);
    }
    commit_columns(s, histo);
}

__global__ void fused_kernel(const uint4* __restrict__ in, size_t n16, unsigned* histo) {
    extern __shared__ unsigned s[];
    zero_columns(s);
    int lane = threadIdx.x & 31;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = in[i + j * stride];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            count_word(s, v[j].x, lane);
            count_word(s, v[j].y, lane);
            count_word(s, v[j].z, lane);
            count_word(s, v[j].w, lane);
        }
    }
    for (; i < n16; i += stride) {
        uint4 v = in[i];
        count_word(s, v.x, lane);
        count_word(s, v.y, lane);
        count_word(s, v.z, lane);
        count_word(s, v.w, lane);
    }
    commit_columns(s, histo);
}

// Timed launches per measurement; `once` (for Nsight Compute) runs each launch once.
static int REPS = 25;

struct Shape {
    int per_sm, threads;
};

template <typename F>
static float median_us(F launch) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < REPS; r++) {
        CHECK(cudaEventRecord(a));
        launch();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return t.empty() ? 0.0f : t[t.size() / 2];
}

int main(int argc, char** argv) {
    // `once`: 16 MiB only, each launch once and untimed (for Nsight Compute).
    bool once = argc > 1 && std::string(argv[1]) == "once";
    if (once) REPS = 0;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int driver = 0;
    CHECK(cudaDriverGetVersion(&driver));
    printf("device %s, %d SMs, driver API %d\n", p.name, p.multiProcessorCount, driver);
    int sms = p.multiProcessorCount;
    CHECK(cudaFuncSetAttribute(atoms_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED));
    CHECK(cudaFuncSetAttribute(fused_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SHARED));
    CHECK(cudaFuncSetAttribute(atoms_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    CHECK(cudaFuncSetAttribute(fused_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));

    const Shape shapes[] = {{1, 512}, {1, 1024}, {2, 512}, {2, 1024}, {4, 512}};
    std::vector<size_t> mib = {1, 4, 16, 64};
    if (once) mib = {16};
    size_t most = 64u << 20;
    const int BUFFERS = 4;
    std::vector<unsigned char> host(most);
    unsigned x = 12345;
    for (auto& c : host) {
        x = x * 1664525u + 1013904223u;
        c = (unsigned char)(x >> 24);
    }
    unsigned char* d[BUFFERS];
    for (int k = 0; k < BUFFERS; k++) {
        CHECK(cudaMalloc(&d[k], most));
        CHECK(cudaMemcpy(d[k], host.data(), most, cudaMemcpyHostToDevice));
    }
    // Launch k reads slice k of the 256 MiB in turn: more than the L2 holds, so no size is
    // timed from the cache (the check reads the first slice, whose bytes `host` holds).
    auto slice = [&](int k, size_t bytes) {
        size_t per_buffer = most / bytes;
        return (const uint4*)(d[k % BUFFERS] + (size_t)(k / BUFFERS) % per_buffer * bytes);
    };
    unsigned *histo, *sink;
    CHECK(cudaMalloc(&histo, BINS * sizeof(unsigned)));
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));

    printf("%6s %-6s %9s %9s %9s %9s %12s %12s\n", "MiB", "kernel", "blocks/SM", "threads",
           "us", "x read", "right", "");
    bool all_right = true;
    for (size_t m : mib) {
        size_t bytes = m << 20, n16 = bytes / 16;
        int turn = 0;
        float read_best = 1e30f;
        for (Shape s : shapes) {
            float us = median_us([&] {
                read_kernel<<<sms * s.per_sm, s.threads>>>(slice(turn++, bytes), n16, sink);
            });
            read_best = std::min(read_best, us);
            printf("%6zu %-6s %9d %9d %9.2f %9s %12s\n", m, "read", s.per_sm, s.threads, us, "", "");
        }
        std::vector<unsigned> expect(BINS, 0), got(BINS);
        for (size_t i = 0; i < bytes; i++) expect[host[i]]++;
        for (int which = 0; which < 2; which++) {
            float best = 1e30f;
            for (Shape s : shapes) {
                int grid = sms * s.per_sm;
                // The histogram is not zeroed between timed launches (it only grows):
                // a launch is timed alone, as the read kernel is.
                float us = median_us([&] {
                    if (which == 0)
                        atoms_kernel<<<grid, s.threads, SHARED>>>(bytes, histo);
                    else
                        fused_kernel<<<grid, s.threads, SHARED>>>(slice(turn++, bytes), n16, histo);
                });
                CHECK(cudaMemset(histo, 0, BINS * sizeof(unsigned)));
                if (which == 0)
                    atoms_kernel<<<grid, s.threads, SHARED>>>(bytes, histo);
                else
                    fused_kernel<<<grid, s.threads, SHARED>>>((const uint4*)d[0], n16, histo);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(got.data(), histo, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
                bool right;
                if (which == 0) {
                    unsigned long long total = 0;
                    for (unsigned g : got) total += g;
                    right = total == bytes;
                } else {
                    right = got == expect;
                }
                all_right = all_right && right;
                best = std::min(best, us);
                printf("%6zu %-6s %9d %9d %9.2f %9.2f %12s\n", m, which == 0 ? "atoms" : "fused",
                       s.per_sm, s.threads, us, us / read_best, right ? "right" : "WRONG");
            }
            printf("%6zu %-6s best %.2f us = %.2fx the best read (%.2f us); 1.25x is %.2f us\n", m,
                   which == 0 ? "atoms" : "fused", best, best / read_best, read_best, 1.25 * read_best);
        }
    }
    printf("%s\n", all_right ? "every histogram right" : "SOME HISTOGRAM WRONG");
    return all_right ? 0 : 1;
}
