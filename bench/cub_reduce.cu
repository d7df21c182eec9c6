// The library a user would pick instead of writing a reduction kernel:
// cub::DeviceReduce::Sum, timed the way the course's own bench times its kernels
// (cub_timing.cuh: CUDA events around each call, warm-up first, every call from a cold L2,
// median of the repeats).
//
// Build (where the GPU and nvcc are; cub_timing.cuh beside it):
//   nvcc -O3 -arch=sm_90 -o cub_reduce cub_reduce.cu
// Run:  cub_reduce FILE u32|f32 BINS WARMUP REPS
//   FILE holds the raw input (little-endian u32 or f32); BINS is ignored (the bench's
//   anchors all take the same arguments). The u32 sum wraps around, as the chapter's
//   kernels' does; the f32 sum is CUB's own order.
// Prints one JSON object: median/min ms, "bins": [] and "sum" (checked by the caller).
#include <cub/device/device_reduce.cuh>

#include <cstring>

#define ANCHOR_NAME "cub_reduce"
#include "cub_timing.cuh"

template <typename T>
static std::vector<float> run(const std::vector<unsigned char>& raw, int warmup, int reps, T& out) {
    const size_t n = raw.size() / sizeof(T);
    T* d_in = nullptr;
    T* d_sum = nullptr;
    CHECK(cudaMalloc(&d_in, std::max<size_t>(n, 1) * sizeof(T)));
    CHECK(cudaMalloc(&d_sum, sizeof(T)));
    CHECK(cudaMemcpy(d_in, raw.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_sum, (long long)n));
    void* d_temp = nullptr;
    CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));
    std::vector<float> times = time_cold(
        warmup, reps, [] {},
        [&] { CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, (long long)n)); });
    CHECK(cudaMemcpy(&out, d_sum, sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_temp));
    return times;
}

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: cub_reduce FILE u32|f32 BINS WARMUP REPS\n");
        return 2;
    }
    const bool is_f32 = std::strcmp(argv[2], "f32") == 0;
    const int warmup = std::atoi(argv[4]);
    const int reps = std::atoi(argv[5]);
    if ((!is_f32 && std::strcmp(argv[2], "u32") != 0) || reps <= 0 || warmup < 0) {
        std::fprintf(stderr, "cub_reduce: bad arguments\n");
        return 2;
    }
    const std::vector<unsigned char> raw = read_input(argv[1]);
    unsigned int su = 0;
    float sf = 0;
    std::vector<float> t = is_f32 ? run<float>(raw, warmup, reps, sf) : run<unsigned int>(raw, warmup, reps, su);
    print_head("cub::DeviceReduce::Sum", raw.size(), t, reps);
    if (is_f32) {
        std::printf("\"bins\":[],\"sum\":%.9g}\n", (double)sf);
    } else {
        std::printf("\"bins\":[],\"sum\":%u}\n", su);
    }
    return 0;
}
