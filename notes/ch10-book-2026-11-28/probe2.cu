// The second probe of chapter 10's steps (after probe-h200-a.txt): where the time of the
// trees goes. The same three tree orderings with one element per thread, each block's
// sum stored to an array (no atomic) instead of added to one word; the warp-shuffle sum
// with one atomic per block (warps' sums through shared memory) instead of one per warp;
// and the trees with one atomic per block again, beside them, in the same run.
// 2^28 u32 (1 GiB), blocks of 256; median of REPS event-timed launches, L2 flushed
// between them; every sum checked. Build: nvcc -O3 -arch=sm_90 probe2.cu
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

// ORDER 0: t % (2 s) == 0; 1: index = 2 s t; 2: t < s, s halving. ATOMIC: the block's sum
// added to out[0]; else stored to out[blockIdx.x].
template <int ORDER, bool ATOMIC>
__global__ void tree(const uint32_t *in, uint32_t *out) {
    __shared__ uint32_t s[B];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * (size_t)B + t];
    __syncthreads();
    if (ORDER == 2) {
        for (unsigned st = B / 2; st > 0; st /= 2) {
            if (t < st) s[t] += s[t + st];
            __syncthreads();
        }
    } else {
        for (unsigned st = 1; st < B; st *= 2) {
            if (ORDER == 0) {
                if (t % (2 * st) == 0) s[t] += s[t + st];
            } else {
                unsigned index = 2 * st * t;
                if (index < B) s[index] += s[index + st];
            }
            __syncthreads();
        }
    }
    if (t == 0) {
        if (ATOMIC) atomicAdd(out, s[0]);
        else out[blockIdx.x] = s[0];
    }
}
// Each thread adds C elements a block apart; warp sums by shuffles; the warps' sums
// through shared memory; one atomic per block.
template <int C>
__global__ void shuffle_block(const uint32_t *in, uint32_t *sum) {
    __shared__ uint32_t w[B / 32];
    size_t base = blockIdx.x * (size_t)B * C;
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < C; k++) v += in[base + k * B + threadIdx.x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < B / 32 ? w[threadIdx.x] : 0;
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0) atomicAdd(sum, v);
    }
}
__global__ void sum_atomic(const uint32_t *in, size_t n, uint32_t *sum) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, in[i]);
}

static uint32_t *g_flush;

template <typename F>
static void time_case(const char *name, F launch, uint32_t *d_out, size_t words, uint32_t want, size_t bytes) {
    std::vector<float> ms;
    std::vector<uint32_t> got(words);
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int r = 0; r < REPS + 1; r++) {
        CK(cudaMemset(d_out, 0, words * 4));
        CK(cudaMemset(g_flush, 0, 256u << 20));
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float t; CK(cudaEventElapsedTime(&t, a, b));
        if (r > 0) ms.push_back(t);
        CK(cudaMemcpy(got.data(), d_out, words * 4, cudaMemcpyDeviceToHost));
        uint32_t s = 0;
        for (uint32_t x : got) s += x;
        if (s != want) { fprintf(stderr, "%s: sum %u, want %u\n", name, s, want); exit(1); }
    }
    std::sort(ms.begin(), ms.end());
    float med = ms[ms.size() / 2];
    printf("%-22s %9.1f us %9.1f GB/s  (min %.1f, max %.1f us)\n", name, med * 1e3, bytes / (med * 1e-3) / 1e9, ms.front() * 1e3, ms.back() * 1e3);
}

int main() {
    const size_t n = 1ull << 28;
    std::vector<uint32_t> h(n);
    uint32_t x = 12345, want = 0;
    for (size_t i = 0; i < n; i++) { x = x * 1664525u + 1013904223u; h[i] = x >> 24; want += h[i]; }
    uint32_t *d_in, *d_out;
    const unsigned g = n / B;
    CK(cudaMalloc(&d_in, n * 4)); CK(cudaMalloc(&d_out, g * 4)); CK(cudaMalloc(&g_flush, 256u << 20));
    CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("gpu: %s, %d SMs; u32 input, 2^28 elements (1 GiB), blocks of %d; median of %d, L2 flushed\n", p.name, p.multiProcessorCount, B, REPS);
    const size_t bytes = n * 4;
    time_case("interleaved, atomic", [&] { tree<0, true><<<g, B>>>(d_in, d_out); }, d_out, 1, want, bytes);
    time_case("strided, atomic", [&] { tree<1, true><<<g, B>>>(d_in, d_out); }, d_out, 1, want, bytes);
    time_case("halving, atomic", [&] { tree<2, true><<<g, B>>>(d_in, d_out); }, d_out, 1, want, bytes);
    time_case("interleaved, store", [&] { tree<0, false><<<g, B>>>(d_in, d_out); }, d_out, g, want, bytes);
    time_case("strided, store", [&] { tree<1, false><<<g, B>>>(d_in, d_out); }, d_out, g, want, bytes);
    time_case("halving, store", [&] { tree<2, false><<<g, B>>>(d_in, d_out); }, d_out, g, want, bytes);
    time_case("shuffle8, block atomic", [&] { shuffle_block<8><<<g / 8, B>>>(d_in, d_out); }, d_out, 1, want, bytes);
    return 0;
}
