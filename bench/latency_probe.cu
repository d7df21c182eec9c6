// latency_probe.cu: how long one dependent load takes on this GPU, from shared memory, the
// L1 cache, the L2 cache and DRAM, and one shared and one global atomic: the numbers the
// book's sentences about latency cite (notes/latency-h100-*.md).
//
//   nvcc -O3 -arch=sm_90 -o latency_probe latency_probe.cu && ./latency_probe
//
// One thread follows a chain of indices (a random cycle through the array, so that no
// prefetcher or coalescing helps): each load's address is the previous load's value, so
// the loads cannot overlap and the time per hop is the latency. Cycles by clock64() on the
// SM, nanoseconds by %globaltimer over the same hops; the median of 5 runs of each.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Global memory (through L1 unless `volatile` asks otherwise: ld.global.cg skips L1).
template <bool SkipL1>
__global__ void chase_global(const unsigned *next, unsigned start, unsigned hops, unsigned long long *out) {
    unsigned i = start;
    for (unsigned k = 0; k < 64; k++) i = SkipL1 ? __ldcg(&next[i]) : next[i];  // warm the TLB and caches
    long long c0 = clock64();
    unsigned long long t0 = gtime();
    for (unsigned k = 0; k < hops; k++) i = SkipL1 ? __ldcg(&next[i]) : next[i];
    long long c1 = clock64();
    unsigned long long t1 = gtime();
    out[0] = c1 - c0; out[1] = t1 - t0; out[2] = i;
}

__global__ void chase_shared(const unsigned *next, unsigned words, unsigned hops, unsigned long long *out) {
    extern __shared__ unsigned s[];
    for (unsigned k = 0; k < words; k++) s[k] = next[k];
    __syncthreads();
    unsigned i = 0;
    for (unsigned k = 0; k < 64; k++) i = s[i];
    long long c0 = clock64();
    unsigned long long t0 = gtime();
    for (unsigned k = 0; k < hops; k++) i = s[i];
    long long c1 = clock64();
    unsigned long long t1 = gtime();
    out[0] = c1 - c0; out[1] = t1 - t0; out[2] = i;
}

// A chain of atomics: each atomicAdd's returned value picks the next word.
__global__ void chase_atomic_shared(const unsigned *next, unsigned words, unsigned zero, unsigned hops, unsigned long long *out) {
    extern __shared__ unsigned s[];
    for (unsigned k = 0; k < words; k++) s[k] = next[k];
    __syncthreads();
    unsigned i = 0;
    long long c0 = clock64();
    unsigned long long t0 = gtime();
    for (unsigned k = 0; k < hops; k++) i = atomicAdd(&s[i], zero);
    long long c1 = clock64();
    unsigned long long t1 = gtime();
    out[0] = c1 - c0; out[1] = t1 - t0; out[2] = i;
}

__global__ void chase_atomic_global(unsigned *next, unsigned zero, unsigned hops, unsigned long long *out) {
    unsigned i = 0;
    for (unsigned k = 0; k < 64; k++) i = atomicAdd(&next[i], zero);
    long long c0 = clock64();
    unsigned long long t0 = gtime();
    for (unsigned k = 0; k < hops; k++) i = atomicAdd(&next[i], zero);
    long long c1 = clock64();
    unsigned long long t1 = gtime();
    out[0] = c1 - c0; out[1] = t1 - t0; out[2] = i;
}

static std::vector<unsigned> cycle(size_t words, size_t stride_words, unsigned seed) {
    // A random cycle through every stride_words-th word.
    size_t n = words / stride_words;
    std::vector<unsigned> order(n);
    for (size_t k = 0; k < n; k++) order[k] = (unsigned)(k * stride_words);
    srand(seed);
    for (size_t k = n - 1; k > 0; k--) std::swap(order[k], order[(size_t)rand() % (k + 1)]);
    std::vector<unsigned> next(words, 0);
    for (size_t k = 0; k < n; k++) next[order[k]] = order[(k + 1) % n];
    // Start at word 0: put 0 in the cycle's first place.
    return next;
}

int main() {
    unsigned long long *d_out, h[3];
    CHECK(cudaMalloc(&d_out, 24));
    const unsigned hops = 4096;
    printf("what,bytes,cycles_per_hop,ns_per_hop\n");
    auto report = [&](const char *what, size_t bytes, auto launch) {
        std::vector<double> cyc, ns;
        for (int r = 0; r < 5; r++) {
            launch();
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(h, d_out, 24, cudaMemcpyDeviceToHost));
            cyc.push_back((double)h[0] / hops); ns.push_back((double)h[1] / hops);
        }
        std::sort(cyc.begin(), cyc.end()); std::sort(ns.begin(), ns.end());
        printf("%s,%zu,%.1f,%.1f\n", what, bytes, cyc[2], ns[2]);
    };
    // Shared memory and shared atomics: 16 KiB, one word per 128-byte line.
    {
        size_t words = 4096;
        std::vector<unsigned> next = cycle(words, 1, 1);
        unsigned *d; CHECK(cudaMalloc(&d, words * 4));
        CHECK(cudaMemcpy(d, next.data(), words * 4, cudaMemcpyHostToDevice));
        report("shared load", words * 4, [&] { chase_shared<<<1, 1, words * 4>>>(d, words, hops, d_out); });
        report("shared atomicAdd", words * 4, [&] { chase_atomic_shared<<<1, 1, words * 4>>>(d, words, 0u, hops, d_out); });
        CHECK(cudaFree(d));
    }
    // Global: footprints that fit L1 (16 KiB), L2 (8 MiB), and neither (1 GiB); one word per
    // 128-byte line so every hop is a new line.
    size_t sizes[3] = {16u << 10, 8u << 20, 1u << 30};
    const char *names[3] = {"global load, L1 hit", "global load, L2 hit", "global load, DRAM"};
    for (int k = 0; k < 3; k++) {
        size_t words = sizes[k] / 4;
        std::vector<unsigned> next = cycle(words, 32, 2 + k);
        unsigned *d; CHECK(cudaMalloc(&d, sizes[k]));
        CHECK(cudaMemcpy(d, next.data(), sizes[k], cudaMemcpyHostToDevice));
        // Each run goes on from where the last one stopped (h[2]): in the 1 GiB cycle of 8 Mi
        // lines every hop is then a line not touched before, never an L2 hit.
        unsigned start = 0;
        auto go = [&] {
            if (k == 0) chase_global<false><<<1, 1>>>(d, 0, hops, d_out);
            else chase_global<true><<<1, 1>>>(d, k == 2 ? start : 0, hops, d_out);
        };
        report(names[k], sizes[k], [&] {
            go();
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(h, d_out, 24, cudaMemcpyDeviceToHost));
            start = (unsigned)h[2];
            go();
        });
        if (k == 1) report("global atomicAdd, L2", sizes[k], [&] { chase_atomic_global<<<1, 1>>>(d, 0u, hops, d_out); });
        CHECK(cudaFree(d));
    }
    int clock_khz; CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("# SM clock attribute %d MHz\n", clock_khz / 1000);
    return 0;
}
