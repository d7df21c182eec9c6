// cub_timing.cuh: what the bench's CUB anchors (cub_histogram.cu, cub_reduce.cu) share, so
// that CUB is timed exactly as the course's own bench times its kernels: CUDA events
// around each call, warm-ups first, every call from a cold L2, the median of the repeats.
// Define ANCHOR_NAME (the program's name, for its messages) before including it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef ANCHOR_NAME
#error "define ANCHOR_NAME before including cub_timing.cuh"
#endif

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "%s: %s failed: %s (%s)\n", ANCHOR_NAME, #call,      \
                         cudaGetErrorString(e_), cudaGetErrorName(e_));               \
            std::exit(2);                                                             \
        }                                                                             \
    } while (0)

// Reads `vectors` 16-byte vectors (zeros): what is left in the L2 is clean. Stores only if
// the XOR is a value zeros never give, so the loads stay.
__global__ void l2_flush(const uint4* __restrict__ src, size_t vectors, unsigned int* sink) {
    unsigned int x = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < vectors;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = src[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x9e3779b9u) sink[0] = x;
}

// Times `warmup + reps` calls of `call()`, each after `before()` and a read of twice the L2
// (as gpu-host's flush kernel does before each of the bench's launches,
// crates/host/src/cuda/flush.rs: an input smaller than the L2 is otherwise read from the
// cache from the second run on; read, not written, so that no dirty line is left for the
// timed call to write back), both outside the events. Returns the last `reps` times in ms.
template <typename Before, typename Call>
static std::vector<float> time_cold(int warmup, int reps, Before before, Call call) {
    int device = 0, l2 = 0, sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const size_t flush_vectors = std::max<size_t>(2 * (size_t)l2, 1 << 20) / 16;
    uint4* d_flush = nullptr;
    unsigned int* d_sink = nullptr;
    CHECK(cudaMalloc(&d_flush, flush_vectors * 16));
    CHECK(cudaMalloc(&d_sink, sizeof(unsigned int)));
    CHECK(cudaMemset(d_flush, 0, flush_vectors * 16));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int r = 0; r < warmup + reps; ++r) {
        l2_flush<<<sms * 8, 256>>>(d_flush, flush_vectors, d_sink);
        CHECK(cudaGetLastError());
        before();
        CHECK(cudaEventRecord(a));
        call();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= warmup) times.push_back(ms);
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaFree(d_flush));
    CHECK(cudaFree(d_sink));
    return times;
}

// The whole file at `path`, or exit 2 saying why not.
static std::vector<unsigned char> read_input(const char* path) {
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "%s: cannot open %s\n", ANCHOR_NAME, path);
        std::exit(2);
    }
    std::fseek(f, 0, SEEK_END);
    long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<unsigned char> raw(size > 0 ? size : 0);
    if (std::fread(raw.data(), 1, raw.size(), f) != raw.size()) {
        std::fprintf(stderr, "%s: short read of %s\n", ANCHOR_NAME, path);
        std::exit(2);
    }
    std::fclose(f);
    return raw;
}

// Prints the start of the anchor's JSON object (impl, device, bytes, median and min ms,
// reps); the caller adds its result ("bins", "sum") and closes it.
static void print_head(const char* impl, size_t bytes, std::vector<float> times, int reps) {
    std::sort(times.begin(), times.end());
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("{\"impl\":\"%s\",\"device\":\"%s\",\"bytes\":%zu,\"median_ms\":%.6f,"
                "\"min_ms\":%.6f,\"reps\":%d,",
                impl, p.name, bytes, times[times.size() / 2], times[0], reps);
}
