// commit_probe.cu: at 1 to 16 MiB, what does the commit of a shared-memory histogram cost,
// and does CUDA C's RED (atomicAdd, result unused) end a launch sooner than ATOM (result
// used)? u32 values into 4096 bins, one 1024-thread block per SM (u32_vectors' grid for
// short inputs), 16-byte loads; and a variant that stores the bins (no atomics) and one
// that skips the commit, to bound it. Median of 200 event-timed launches.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define BINS 4096
template <int COMMIT>  // 0: none, 1: RED, 2: ATOM (result used), 3: plain store per block
__global__ void hist(const uint4 *d, size_t nvec, unsigned *h, unsigned *sink) {
    __shared__ unsigned s[BINS];
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = d[i];
        atomicAdd(&s[v.x & (BINS - 1)], 1u); atomicAdd(&s[v.y & (BINS - 1)], 1u);
        atomicAdd(&s[v.z & (BINS - 1)], 1u); atomicAdd(&s[v.w & (BINS - 1)], 1u);
    }
    __syncthreads();
    unsigned acc = 0;
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) {
        unsigned c = s[i];
        if (COMMIT == 1) { if (c) atomicAdd(&h[i], c); }
        else if (COMMIT == 2) { if (c) acc += atomicAdd(&h[i], c); }
        else if (COMMIT == 3) { h[blockIdx.x * BINS + i] = c; }
        else acc += c;
    }
    if (acc == 0xdeadbeef) sink[0] = acc;
}
__global__ void readk(const uint4 *d, size_t nvec, unsigned *sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = d[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0xdeadbeef) sink[0] = acc;
}
int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    size_t maxn = 16u << 20;
    std::vector<unsigned> host(maxn / 4);
    unsigned x = 12345; for (auto &v : host) { x = x * 1664525u + 1013904223u; v = (x >> 8) & (BINS - 1); }
    uint4 *d; unsigned *h, *sink; cudaMalloc(&d, maxn); cudaMalloc(&h, (size_t)sms * 8 * BINS * 4); cudaMalloc(&sink, 4);
    cudaMemcpy(d, host.data(), maxn, cudaMemcpyHostToDevice);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto time = [&](auto launch) {
        std::vector<float> t;
        for (int r = 0; r < 220; r++) {
            cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 20) t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end()); return t[t.size() / 2];
    };
    for (size_t mib : {1, 4, 16}) {
        size_t nvec = (mib << 20) / 16;
        float rd = time([&] { readk<<<sms * 2, 1024>>>(d, nvec, sink); });
        float none = time([&] { hist<0><<<sms, 1024>>>(d, nvec, h, sink); });
        float red = time([&] { hist<1><<<sms, 1024>>>(d, nvec, h, sink); });
        float atom = time([&] { hist<2><<<sms, 1024>>>(d, nvec, h, sink); });
        float st = time([&] { hist<3><<<sms, 1024>>>(d, nvec, h, sink); });
        printf("%2zu MiB u32/4096, %d x 1024: read %.2f us | count, no commit %.2f | RED commit %.2f | ATOM commit %.2f | store bins %.2f\n",
               mib, sms, rd, none, red, atom, st);
    }
    cudaError_t e = cudaGetLastError(); if (e) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    return 0;
}
