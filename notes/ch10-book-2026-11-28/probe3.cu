// The third probe of chapter 10: 10.9's design in CUDA C (16-byte loads in a grid-stride
// loop, four in flight, a sum per thread, warp shuffles, the warps' sums through shared
// memory, one atomic per block), for u32 and f32, against CUB's DeviceReduce::Sum and a
// 16-byte read kernel, on 1 GiB. Grid: the resident blocks (SMs x occupancy). Each case
// the median of REPS event-timed launches (CUB: its call), a 256 MiB cudaMemset between
// launches (outside the events) so that the input is not in L2; every sum checked (u32
// exactly, f32 within 1e-5 of the sum in double). Build: nvcc -O3 -arch=sm_90 probe3.cu
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <algorithm>
#include <functional>
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int B = 256;
constexpr int REPS = 15;

__device__ __forceinline__ uint32_t add4(uint32_t a, uint4 q) { return a + q.x + q.y + q.z + q.w; }
__device__ __forceinline__ float add4(float a, uint4 q) {
    a += __uint_as_float(q.x); a += __uint_as_float(q.y); a += __uint_as_float(q.z); a += __uint_as_float(q.w);
    return a;
}
template <typename T> __device__ __forceinline__ T warp_sum(T v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
template <typename T>
__global__ void fastest(const T *in, size_t n, T *sum) {
    __shared__ T ws[32];
    const uint4 *vec = reinterpret_cast<const uint4 *>(in);
    size_t nv = n / 4, stride = gridDim.x * (size_t)blockDim.x;
    size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    T acc = 0;
    while (v < nv && nv - v > 3 * stride) {
        uint4 a = vec[v], b = vec[v + stride], c = vec[v + 2 * stride], d = vec[v + 3 * stride];
        acc = add4(acc, a); acc = add4(acc, b); acc = add4(acc, c); acc = add4(acc, d);
        v += 4 * stride;
    }
    for (; v < nv; v += stride) acc = add4(acc, vec[v]);
    for (size_t i = nv * 4 + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) acc += in[i];
    acc = warp_sum(acc);
    unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) ws[w] = acc;
    __syncthreads();
    if (w == 0) {
        acc = lane < blockDim.x / 32 ? ws[lane] : T(0);
        acc = warp_sum(acc);
        if (lane == 0) atomicAdd(sum, acc);
    }
}
__global__ void read16(const uint4 *in, size_t n4, uint32_t *sum) {
    uint32_t v = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        uint4 q = in[i];
        v += q.x + q.y + q.z + q.w;
    }
    if (v == 0xdeadbeef) atomicAdd(sum, v);
}

static void *g_flush;
static float time_it(const char *name, std::function<void()> launch, std::function<void()> reset,
                     std::function<bool()> check, size_t bytes) {
    std::vector<float> ms;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int r = 0; r < REPS + 1; r++) {
        reset();
        CK(cudaMemset(g_flush, 0, 256u << 20));
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float t; CK(cudaEventElapsedTime(&t, a, b));
        if (r > 0) ms.push_back(t);
        if (!check()) { fprintf(stderr, "%s: wrong sum\n", name); exit(1); }
    }
    std::sort(ms.begin(), ms.end());
    float med = ms[ms.size() / 2];
    printf("%-22s %8.1f us %8.1f GB/s  (min %.1f, max %.1f us)\n", name, med * 1e3, bytes / (med * 1e-3) / 1e9, ms.front() * 1e3, ms.back() * 1e3);
    return med;
}

int main() {
    const size_t n = 1ull << 28, bytes = n * 4;
    std::vector<uint32_t> hu(n);
    std::vector<float> hf(n);
    uint32_t x = 12345, want_u = 0;
    double want_f = 0;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        hu[i] = x >> 24; want_u += hu[i];
        hf[i] = (x >> 8) / 16777216.0f; want_f += hf[i];
    }
    uint32_t *du, *su; float *df, *sf;
    CK(cudaMalloc(&du, bytes)); CK(cudaMalloc(&df, bytes)); CK(cudaMalloc(&su, 4)); CK(cudaMalloc(&sf, 4));
    CK(cudaMalloc(&g_flush, 256u << 20));
    CK(cudaMemcpy(du, hu.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(df, hf.data(), bytes, cudaMemcpyHostToDevice));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    int occ_u = 0, occ_f = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_u, fastest<uint32_t>, B, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_f, fastest<float>, B, 0));
    unsigned gu = p.multiProcessorCount * occ_u, gf = p.multiProcessorCount * occ_f;
    printf("gpu: %s, %d SMs; 2^28 elements (1 GiB); fastest <<<%u, %d>>> (u32), <<<%u, %d>>> (f32); median of %d, L2 flushed\n",
           p.name, p.multiProcessorCount, gu, B, gf, B, REPS);
    uint32_t got_u; float got_f;
    auto ck_u = [&] { CK(cudaMemcpy(&got_u, su, 4, cudaMemcpyDeviceToHost)); return got_u == want_u; };
    auto ck_f = [&] { CK(cudaMemcpy(&got_f, sf, 4, cudaMemcpyDeviceToHost)); return std::fabs(got_f - want_f) / want_f < 1e-5; };
    time_it("read16", [&] { read16<<<p.multiProcessorCount * 8, 512>>>((const uint4 *)du, n / 4, su); },
            [&] { CK(cudaMemset(su, 0, 4)); }, [] { return true; }, bytes);
    time_it("fastest u32", [&] { fastest<uint32_t><<<gu, B>>>(du, n, su); }, [&] { CK(cudaMemset(su, 0, 4)); }, ck_u, bytes);
    time_it("fastest f32", [&] { fastest<float><<<gf, B>>>(df, n, sf); }, [&] { CK(cudaMemset(sf, 0, 4)); }, ck_f, bytes);
    printf("fastest f32: %.1f, double %.1f, relative error %.2e\n", got_f, want_f, std::fabs(got_f - want_f) / want_f);
    void *tmp = nullptr; size_t tmp_bytes = 0, t2 = 0;
    CK(cub::DeviceReduce::Sum(nullptr, tmp_bytes, du, su, (int)n));
    CK(cub::DeviceReduce::Sum(nullptr, t2, df, sf, (int)n));
    CK(cudaMalloc(&tmp, std::max(tmp_bytes, t2)));
    time_it("cub Sum u32", [&] { CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, du, su, (int)n)); }, [] {}, ck_u, bytes);
    time_it("cub Sum f32", [&] { CK(cub::DeviceReduce::Sum(tmp, t2, df, sf, (int)n)); }, [] {}, ck_f, bytes);
    printf("cub f32: %.1f, relative error %.2e\n", got_f, std::fabs(got_f - want_f) / want_f);
    return 0;
}
