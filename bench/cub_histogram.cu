// The library a user would pick instead of writing a histogram kernel:
// cub::DeviceHistogram::HistogramEven, timed the way the course's own bench times its
// kernels (cub_timing.cuh: CUDA events around each call, warm-up first, every call from a
// cold L2, median of the repeats).
//
// Build (where the GPU and nvcc are; cub_timing.cuh beside it):
//   nvcc -O3 -arch=sm_90 -o cub_histogram cub_histogram.cu
// Run:  cub_histogram FILE u8|u32 BINS WARMUP REPS
//   FILE holds the raw input (little-endian u32 for u32). Levels: [0, 256) for u8,
//   [0, BINS) for u32, so every value is counted in bin = value (u8) or value (u32 < BINS).
// Prints one JSON object: median/min ms, the bins (to be checked by the caller), device.
#include <cub/device/device_histogram.cuh>

#include <cstring>
#include <type_traits>

#define ANCHOR_NAME "cub_histogram"
#include "cub_timing.cuh"

template <typename T>
static std::vector<float> run(const std::vector<unsigned char>& raw, int bins, int warmup, int reps,
                              std::vector<unsigned int>& out) {
    const size_t n = raw.size() / sizeof(T);
    T* d_in = nullptr;
    unsigned int* d_hist = nullptr;
    CHECK(cudaMalloc(&d_in, std::max<size_t>(n, 1) * sizeof(T)));
    CHECK(cudaMalloc(&d_hist, bins * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, raw.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    // HistogramEven counts samples in [lower, upper) split into bins evenly: with
    // num_levels = bins + 1, lower = 0, upper = bins (256 for u8) bin b holds value b.
    using Level = typename std::conditional<sizeof(T) == 1, int, unsigned int>::type;
    Level lower = 0, upper = (Level)bins;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_hist, bins + 1, lower, upper, (long long)n));
    void* d_temp = nullptr;
    CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));
    std::vector<float> times = time_cold(
        warmup, reps, [&] { CHECK(cudaMemset(d_hist, 0, bins * sizeof(unsigned int))); },
        [&] {
            CHECK(cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_in, d_hist, bins + 1, lower,
                                                      upper, (long long)n));
        });
    out.assign(bins, 0);
    CHECK(cudaMemcpy(out.data(), d_hist, bins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_hist));
    CHECK(cudaFree(d_temp));
    return times;
}

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: cub_histogram FILE u8|u32 BINS WARMUP REPS\n");
        return 2;
    }
    const bool is_u8 = std::strcmp(argv[2], "u8") == 0;
    const int bins = std::atoi(argv[3]);
    const int warmup = std::atoi(argv[4]);
    const int reps = std::atoi(argv[5]);
    if ((!is_u8 && std::strcmp(argv[2], "u32") != 0) || bins <= 0 || reps <= 0 || warmup < 0) {
        std::fprintf(stderr, "cub_histogram: bad arguments\n");
        return 2;
    }
    const std::vector<unsigned char> raw = read_input(argv[1]);
    std::vector<unsigned int> hist;
    std::vector<float> t = is_u8 ? run<unsigned char>(raw, bins, warmup, reps, hist)
                                 : run<unsigned int>(raw, bins, warmup, reps, hist);
    print_head("cub::DeviceHistogram::HistogramEven", raw.size(), t, reps);
    std::printf("\"bins\":[");
    for (int i = 0; i < bins; ++i) std::printf(i ? ",%u" : "%u", hist[i]);
    std::printf("]}\n");
    return 0;
}
