// The library a user would pick instead of writing a histogram kernel:
// cub::DeviceHistogram::HistogramEven, timed the way the course's own bench times its
// kernels (CUDA events around each launch, warm-up first, median of the repeats).
//
// Build (where the GPU and nvcc are):  nvcc -O3 -arch=sm_90 -o cub_histogram cub_histogram.cu
// Run:  cub_histogram FILE u8|u32 BINS WARMUP REPS
//   FILE holds the raw input (little-endian u32 for u32). Levels: [0, 256) for u8,
//   [0, BINS) for u32, so every value is counted in bin = value (u8) or value (u32 < BINS).
// Prints one JSON object: median/min ms, the bins (to be checked by the caller), device.
#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "cub_histogram: %s failed: %s (%s)\n", #call,        \
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

template <typename T>
static std::vector<float> run(const std::vector<unsigned char>& raw, int bins, int warmup, int reps,
                              std::vector<unsigned int>& out) {
    const size_t n = raw.size() / sizeof(T);
    T* d_in = nullptr;
    unsigned int* d_hist = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(T)));
    CHECK(cudaMalloc(&d_hist, bins * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, raw.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    // HistogramEven counts samples in [lower, upper) split into bins evenly: with
    // num_levels = bins + 1, lower = 0, upper = bins (256 for u8) bin b holds value b.
    using Level = typename std::conditional<sizeof(T) == 1, int, unsigned int>::type;
    Level lower = 0, upper = (Level)bins;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_hist, bins + 1, lower, upper, (long long)n));
    void* d_temp = nullptr;
    CHECK(cudaMalloc(&d_temp, temp_bytes));
    // Every run starts from a cold L2, as the bench's own launches do (gpu-host's flush
    // kernel reads twice the L2 before each, crates/host/src/cuda/flush.rs): an input
    // smaller than the L2 is otherwise read from the cache from the second run on. Read,
    // not written: written, the L2 would be left dirty for the timed call to write back.
    int device = 0, l2 = 0, sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const size_t flush_vectors = std::max<size_t>(2 * (size_t)l2, 1 << 20) / 16;
    uint4* d_flush = nullptr;
    CHECK(cudaMalloc(&d_flush, flush_vectors * 16));
    CHECK(cudaMemset(d_flush, 0, flush_vectors * 16));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int r = 0; r < warmup + reps; ++r) {
        l2_flush<<<sms * 8, 256>>>(d_flush, flush_vectors, d_hist);
        CHECK(cudaGetLastError());
        CHECK(cudaMemset(d_hist, 0, bins * sizeof(unsigned int)));
        CHECK(cudaEventRecord(a));
        CHECK(cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_in, d_hist, bins + 1, lower, upper, (long long)n));
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= warmup) times.push_back(ms);
    }
    out.assign(bins, 0);
    CHECK(cudaMemcpy(out.data(), d_hist, bins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_hist));
    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_flush));
    return times;
}

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: cub_histogram FILE u8|u32 BINS WARMUP REPS\n");
        return 2;
    }
    const char* path = argv[1];
    const bool is_u8 = std::strcmp(argv[2], "u8") == 0;
    const int bins = std::atoi(argv[3]);
    const int warmup = std::atoi(argv[4]);
    const int reps = std::atoi(argv[5]);
    if ((!is_u8 && std::strcmp(argv[2], "u32") != 0) || bins <= 0 || reps <= 0 || warmup < 0) {
        std::fprintf(stderr, "cub_histogram: bad arguments\n");
        return 2;
    }
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "cub_histogram: cannot open %s\n", path);
        return 2;
    }
    std::fseek(f, 0, SEEK_END);
    long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<unsigned char> raw(size);
    if (std::fread(raw.data(), 1, size, f) != (size_t)size) {
        std::fprintf(stderr, "cub_histogram: short read of %s\n", path);
        return 2;
    }
    std::fclose(f);
    std::vector<unsigned int> hist;
    std::vector<float> t = is_u8 ? run<unsigned char>(raw, bins, warmup, reps, hist)
                                 : run<unsigned int>(raw, bins, warmup, reps, hist);
    std::vector<float> s = t;
    std::sort(s.begin(), s.end());
    float median = s[s.size() / 2];
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    std::printf("{\"impl\":\"cub::DeviceHistogram::HistogramEven\",\"device\":\"%s\",\"bytes\":%ld,"
                "\"median_ms\":%.6f,\"min_ms\":%.6f,\"reps\":%d,\"bins\":[",
                p.name, size, median, s[0], reps);
    for (int i = 0; i < bins; ++i) std::printf(i ? ",%u" : "%u", hist[i]);
    std::printf("]}\n");
    return 0;
}
