// Three claims of the course's sources, timed on today's GPU (issue 47, point 6).
//   blog:  16384 u32 values into 4096 bins, blocks of 1024 threads (16 blocks), a global
//          atomic per value against a shared-memory copy per block (seed 002's case).
//   cook:  524288 bytes into 256 bins with a global atomic per byte, the bytes drawn from
//          4 values (131072 atomics per bin, Cook's example), from 256 values and from 1.
//   warp:  Cook's half-warp claim: a branch split at lane 16 against no split, a split
//          between odd and even lanes, and a split between whole warps.
//   cbe:   CUDA by Example's 100 MB with global atomics on five grids, from one block to
//          one block per 256 bytes.
// Each case: the median of REPS launches timed one by one with CUDA events; "cold" cases
// read a 256 MiB buffer between launches (outside the events) so the input is not in L2.
// Every histogram is checked against the CPU's. Build: nvcc -O3 -arch=sm_90 probe.cu
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void histo_global_u32(const uint32_t *in, int n, uint32_t *bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[in[i]], 1u);
}
__global__ void histo_shared_u32(const uint32_t *in, int n, uint32_t *bins, int nb) {
    extern __shared__ uint32_t s[];
    for (int b = threadIdx.x; b < nb; b += blockDim.x) s[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&s[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nb; b += blockDim.x)
        if (s[b]) atomicAdd(&bins[b], s[b]);
}
__global__ void histo_global_u8(const uint8_t *in, int n, uint32_t *bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[in[i]], 1u);
}
__global__ void histo_stride_u8(const uint8_t *in, size_t n, uint32_t *bins) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i]], 1u);
}
// pattern 0: no split; 1: lanes 0-15 / 16-31; 2: odd / even lanes; 3: even / odd warps.
__global__ void branches(float *out, int pattern, int iters) {
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    bool a = pattern == 0 ? true : pattern == 1 ? lane < 16 : pattern == 2 ? (lane & 1) == 0 : (warp & 1) == 0;
    float x = threadIdx.x * 1e-3f;
    if (a) {
#pragma unroll 1
        for (int k = 0; k < iters; k++) x = x * 1.0001f + 0.5f;
    } else {
#pragma unroll 1
        for (int k = 0; k < iters; k++) x = x * 0.9999f - 0.25f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

static uint8_t *g_flush;
static const size_t FLUSH = 256u << 20;
__global__ void touch(const uint4 *p, size_t n, uint32_t *sink) {
    uint32_t acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc ^= p[i].x;
    if (acc == 0x12345678u) *sink = acc;
}
static void flush_l2(uint32_t *sink) {
    touch<<<1056, 256>>>((const uint4 *)g_flush, FLUSH / 16, sink);
}

template <class P, class F>
static double median_us(P pre, F launch, int reps, bool cold, uint32_t *sink) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < reps + 5; r++) {
        if (cold) flush_l2(sink);
        pre();
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 5) t.push_back(ms * 1e3f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    int drv; CK(cudaDriverGetVersion(&drv));
    printf("gpu: %s, sm_%d%d, %d SMs, L2 %d MiB, driver API %d\n", p.name, p.major, p.minor,
           p.multiProcessorCount, p.l2CacheSize >> 20, drv);
    CK(cudaMalloc(&g_flush, FLUSH)); CK(cudaMemset(g_flush, 1, FLUSH));
    uint32_t *sink; CK(cudaMalloc(&sink, 4));
    srand(47);
    const int REPS = 201;

    // blog: 16384 u32 values (64 KiB) into 4096 bins, 1024-thread blocks.
    {
        const int n = 16384, nb = 4096, t = 1024, blocks = (n + t - 1) / t;
        std::vector<uint32_t> h(n), want(nb, 0), got(nb);
        for (int i = 0; i < n; i++) { h[i] = rand() % nb; want[h[i]]++; }
        uint32_t *d, *bins;
        CK(cudaMalloc(&d, n * 4)); CK(cudaMalloc(&bins, nb * 4));
        CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
        for (int which = 0; which < 2; which++) {
            auto pre = [&] { CK(cudaMemsetAsync(bins, 0, nb * 4)); };
            auto launch = [&] {
                if (which == 0) histo_global_u32<<<blocks, t>>>(d, n, bins);
                else histo_shared_u32<<<blocks, t, nb * 4>>>(d, n, bins, nb);
            };
            pre(); launch(); CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), bins, nb * 4, cudaMemcpyDeviceToHost));
            bool ok = got == want;
            for (int cold = 0; cold < 2; cold++) {
                double us = median_us(pre, launch, REPS, cold, sink);
                printf("blog n=16384 u32 bins=4096 block=1024 grid=%d %s %s: %.2f us (kernel, median of %d)%s\n",
                       blocks, which ? "shared" : "global", cold ? "cold-l2" : "warm", us, REPS, ok ? "" : " WRONG");
            }
        }
        CK(cudaFree(d)); CK(cudaFree(bins));
    }

    // cook: 524288 bytes, a global atomic per byte, 256-thread blocks.
    {
        const int n = 524288, t = 256, blocks = n / t;
        uint8_t *d; uint32_t *bins;
        CK(cudaMalloc(&d, n)); CK(cudaMalloc(&bins, 256 * 4));
        int values[3] = {256, 4, 1};
        for (int v : values) {
            std::vector<uint8_t> h(n);
            std::vector<uint32_t> want(256, 0), got(256);
            for (int i = 0; i < n; i++) { h[i] = (uint8_t)(rand() % v); want[h[i]]++; }
            CK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
            auto pre = [&] { CK(cudaMemsetAsync(bins, 0, 256 * 4)); };
            auto launch = [&] { histo_global_u8<<<blocks, t>>>(d, n, bins); };
            pre(); launch(); CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), bins, 256 * 4, cudaMemcpyDeviceToHost));
            uint32_t most = *std::max_element(want.begin(), want.end());
            double us = median_us(pre, launch, REPS, true, sink);
            printf("cook n=524288 u8 values=%d most-per-bin=%u grid=%d block=%d cold-l2: %.2f us (kernel, median of %d)%s\n",
                   v, most, blocks, t, us, REPS, got == want ? "" : " WRONG");
        }
        CK(cudaFree(d)); CK(cudaFree(bins));
    }

    // warp: the same two loops, lanes split four ways.
    {
        const int t = 256, blocks = p.multiProcessorCount * 8, iters = 4096;
        float *out; CK(cudaMalloc(&out, blocks * t * 4));
        const char *names[4] = {"none (all lanes one branch)", "half-warp (lanes 0-15 / 16-31)",
                                "odd-even lanes", "whole warps (even / odd warps)"};
        for (int pat = 0; pat < 4; pat++) {
            auto pre = [] {};
            auto launch = [&] { branches<<<blocks, t>>>(out, pat, iters); };
            launch(); CK(cudaDeviceSynchronize());
            double us = median_us(pre, launch, 51, false, sink);
            printf("warp split=%d %s grid=%d block=%d iters=%d: %.2f us (median of 51)\n",
                   pat, names[pat], blocks, t, iters, us);
        }
        CK(cudaFree(out));
    }

    // cbe: CUDA by Example's 100 MB (104,857,600 bytes), a global atomic per byte in a
    // grid-stride loop, blocks of 256 threads: one block, 1, 2 and 8 blocks per SM, and one
    // block per 256 bytes (409,600 blocks, one byte per thread).
    {
        const size_t n = 104857600; const int t = 256;
        std::vector<uint8_t> h(n);
        std::vector<uint32_t> want(256, 0), got(256);
        for (size_t i = 0; i < n; i++) { h[i] = (uint8_t)(rand() & 255); want[h[i]]++; }
        uint8_t *d; uint32_t *bins;
        CK(cudaMalloc(&d, n)); CK(cudaMalloc(&bins, 256 * 4));
        CK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
        int sms = p.multiProcessorCount;
        int grids[5] = {1, sms, 2 * sms, 8 * sms, (int)(n / t)};
        for (int g : grids) {
            auto pre = [&] { CK(cudaMemsetAsync(bins, 0, 256 * 4)); };
            auto launch = [&] { histo_stride_u8<<<g, t>>>(d, n, bins); };
            pre(); launch(); CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), bins, 256 * 4, cudaMemcpyDeviceToHost));
            double us = median_us(pre, launch, g == 1 ? 5 : 21, true, sink);
            printf("cbe n=104857600 u8 uniform grid=%d block=%d cold-l2: %.1f us, %.2f GB/s (kernel, median of %d)%s\n",
                   g, t, us, n / us / 1e3, g == 1 ? 5 : 21, got == want ? "" : " WRONG");
        }
        CK(cudaFree(d)); CK(cudaFree(bins));
    }
    return 0;
}
