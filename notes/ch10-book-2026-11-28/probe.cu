// Chapter 10's reduction steps timed on one GPU at one size, for the book's speed
// predictions (10.3 to 10.8), until the course's bench measures chapter 10.
//   atomic:      one global atomicAdd per element (10.3), on 2^24 elements
//   interleaved: a tree in shared memory, t % (2 s) == 0 (10.4)
//   strided:     index = 2 s t (10.5)
//   halving:     t < s, s halving (10.6)
//   coarse8:     10.6 after each thread adds 8 elements a block apart (10.7)
//   shuffle:     each thread adds 8 elements, a warp's sum by __shfl_down_sync, one
//                atomic per warp (10.8)
//   read:        16-byte loads of the whole input, a sum per thread kept (the ceiling)
// Trees: blocks of 256 threads, one element per thread, one atomicAdd per block. u32 input
// of 2^28 elements (1 GiB) but 2^24 for `atomic`. Each case: the median of REPS launches
// timed one by one with CUDA events, a 256 MiB buffer written (cudaMemset) between launches (outside the
// events) so that the input is not in L2. Every sum is checked against the CPU's.
// Build: nvcc -O3 -arch=sm_90 probe.cu
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int B = 256;
constexpr int REPS = 15;

__global__ void sum_atomic(const uint32_t *in, size_t n, uint32_t *sum) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, in[i]);
}
__global__ void tree_interleaved(const uint32_t *in, uint32_t *sum) {
    __shared__ uint32_t s[B];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * (size_t)B + t];
    __syncthreads();
    for (unsigned st = 1; st < B; st *= 2) {
        if (t % (2 * st) == 0) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) atomicAdd(sum, s[0]);
}
__global__ void tree_strided(const uint32_t *in, uint32_t *sum) {
    __shared__ uint32_t s[B];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * (size_t)B + t];
    __syncthreads();
    for (unsigned st = 1; st < B; st *= 2) {
        unsigned index = 2 * st * t;
        if (index < B) s[index] += s[index + st];
        __syncthreads();
    }
    if (t == 0) atomicAdd(sum, s[0]);
}
__global__ void tree_halving(const uint32_t *in, uint32_t *sum) {
    __shared__ uint32_t s[B];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * (size_t)B + t];
    __syncthreads();
    for (unsigned st = B / 2; st > 0; st /= 2) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) atomicAdd(sum, s[0]);
}
template <int C>
__global__ void tree_coarse(const uint32_t *in, uint32_t *sum) {
    __shared__ uint32_t s[B];
    unsigned t = threadIdx.x;
    size_t base = blockIdx.x * (size_t)B * C;
    uint32_t mine = 0;
#pragma unroll
    for (int k = 0; k < C; k++) mine += in[base + k * B + t];
    s[t] = mine;
    __syncthreads();
    for (unsigned st = B / 2; st > 0; st /= 2) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) atomicAdd(sum, s[0]);
}
template <int C>
__global__ void warp_shuffle(const uint32_t *in, uint32_t *sum) {
    size_t base = blockIdx.x * (size_t)B * C;
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < C; k++) v += in[base + k * B + threadIdx.x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) atomicAdd(sum, v);
}
__global__ void read16(const uint4 *in, size_t n4, uint32_t *sum) {
    uint32_t v = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        uint4 q = in[i];
        v += q.x + q.y + q.z + q.w;
    }
    if (v == 0xdeadbeef) atomicAdd(sum, v);  // keeps the loads; never true on this input
}

static uint32_t *g_flush;
static void flush() { CK(cudaMemset(g_flush, 0, 256u << 20)); }

template <typename F>
static float time_case(const char *name, F launch, uint32_t *d_sum, uint32_t want, size_t bytes, bool check = true) {
    std::vector<float> ms;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int r = 0; r < REPS + 1; r++) {
        CK(cudaMemset(d_sum, 0, 4));
        flush();
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float t; CK(cudaEventElapsedTime(&t, a, b));
        if (r > 0) ms.push_back(t);  // the first launch warms up
        uint32_t got; CK(cudaMemcpy(&got, d_sum, 4, cudaMemcpyDeviceToHost));
        if (check && got != want) { fprintf(stderr, "%s: sum %u, want %u\n", name, got, want); exit(1); }
    }
    std::sort(ms.begin(), ms.end());
    float med = ms[ms.size() / 2];
    printf("%-12s %10.1f us %9.1f GB/s  (min %.1f, max %.1f us)\n", name, med * 1e3, bytes / (med * 1e-3) / 1e9, ms.front() * 1e3, ms.back() * 1e3);
    return med;
}

int main() {
    const size_t n = 1ull << 28, n_atomic = 1ull << 24;
    std::vector<uint32_t> h(n);
    uint32_t x = 12345, want = 0, want_atomic = 0;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        h[i] = x >> 24;
        want += h[i];
        if (i < n_atomic) want_atomic += h[i];
    }
    uint32_t *d_in, *d_sum;
    CK(cudaMalloc(&d_in, n * 4)); CK(cudaMalloc(&d_sum, 4)); CK(cudaMalloc(&g_flush, 256u << 20));
    CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("gpu: %s, %d SMs; u32 input, 2^28 elements (1 GiB), 2^24 for atomic; median of %d, L2 flushed\n", p.name, p.multiProcessorCount, REPS);
    unsigned g = n / B;
    time_case("atomic", [&] { sum_atomic<<<n_atomic / B, B>>>(d_in, n_atomic, d_sum); }, d_sum, want_atomic, n_atomic * 4);
    time_case("interleaved", [&] { tree_interleaved<<<g, B>>>(d_in, d_sum); }, d_sum, want, n * 4);
    time_case("strided", [&] { tree_strided<<<g, B>>>(d_in, d_sum); }, d_sum, want, n * 4);
    time_case("halving", [&] { tree_halving<<<g, B>>>(d_in, d_sum); }, d_sum, want, n * 4);
    time_case("coarse8", [&] { tree_coarse<8><<<g / 8, B>>>(d_in, d_sum); }, d_sum, want, n * 4);
    time_case("shuffle8", [&] { warp_shuffle<8><<<g / 8, B>>>(d_in, d_sum); }, d_sum, want, n * 4);
    time_case("read16", [&] { read16<<<p.multiProcessorCount * 8, 512>>>((const uint4 *)d_in, n / 4, d_sum); }, d_sum, 0, n * 4, false);
    return 0;
}
