// atomics_probe.cu: what one warp's shared atomic costs on this GPU, pattern by pattern,
// for the emulator's model of shared atomics (crates/simt/src/exec.rs) to be checked
// against. Run under Nsight Compute (gpu-fidelity.sh does):
//
//   nvcc -O3 -arch=sm_90 -o atomics_probe atomics_probe.cu
//   ncu --csv --log-file probe.csv --metrics <the list in gpu-fidelity.sh> ./atomics_probe probes > launches.csv
//   ./atomics_probe timing
//
// Every launch is one block of 32 threads: one warp issues one shared atomic, lane l on
// word idx[l] of a zeroed 1024-word array, if active[l]. Three kinds of atomic, as the
// course's kernels compile on sm_90:
//   popc  atomicAdd(&s[i], 1)          ATOMS.POPC.INC (9.5, 9.9)
//   add   atomicAdd(&s[i], v[l])       ATOMS.ADD, a variable operand (9.7, 9.8)
//   f32   atomicAdd(&f[i], w[l])       a LDS + ATOMS.CAST.SPIN loop (9.12)
// stdout is one CSV line per launch, in launch order (ncu's IDs): the pattern, the active
// lanes, and what three candidate models predict, so that the ncu counters can be set
// beside them: distinct words in the busiest bank - 1, active lanes in the busiest bank - 1,
// and lanes on the busiest word.
//
// The second part times global atomics on 64 MiB of bytes (uniform, one value), CUDA C's
// atomicAdd with its result unused (RED) against the same with the result used (ATOM, as
// rustc's nvptx backend emits for every atomic_add): median of 20 launches each, to stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ void zero(unsigned *s) {
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
    __syncthreads();
}

__global__ void probe_popc(const int *idx, const int *active, const unsigned *v, unsigned *out) {
    __shared__ unsigned s[1024];
    zero(s);
    int l = threadIdx.x;
    if (active[l]) atomicAdd(&s[idx[l]], 1u);
    __syncthreads();
    out[l] = s[idx[l]];
}

__global__ void probe_add(const int *idx, const int *active, const unsigned *v, unsigned *out) {
    __shared__ unsigned s[1024];
    zero(s);
    int l = threadIdx.x;
    if (active[l]) atomicAdd(&s[idx[l]], v[l]);
    __syncthreads();
    out[l] = s[idx[l]];
}

__global__ void probe_f32(const int *idx, const int *active, const unsigned *v, unsigned *out) {
    __shared__ float s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0.0f;
    __syncthreads();
    int l = threadIdx.x;
    if (active[l]) atomicAdd(&s[idx[l]], (float)v[l]);
    __syncthreads();
    out[l] = __float_as_uint(s[idx[l]]);
}

__global__ void global_red(const unsigned char *d, size_t n, unsigned *h) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&h[d[i]], 1u);
}

__global__ void global_atom(const unsigned char *d, size_t n, unsigned *h, unsigned *sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc |= atomicAdd(&h[d[i]], 1u);
    if (acc == 0xffffffffu) sink[0] = 1;
}

struct Pattern { const char *name; int idx[32]; int active[32]; unsigned v[32]; };

static unsigned rng_state = 9;
static unsigned rnd() { rng_state = rng_state * 1664525u + 1013904223u; return rng_state >> 8; }

static void models(const Pattern &p, int &words, int &lanes, int &depth) {
    words = lanes = depth = 0;
    for (int b = 0; b < 32; b++) {
        std::vector<int> w; int n = 0;
        for (int l = 0; l < 32; l++) if (p.active[l] && p.idx[l] % 32 == b) {
            n++;
            if (std::find(w.begin(), w.end(), p.idx[l]) == w.end()) w.push_back(p.idx[l]);
        }
        words = std::max(words, (int)w.size()); lanes = std::max(lanes, n);
    }
    for (int l = 0; l < 32; l++) if (p.active[l]) {
        int n = 0;
        for (int k = 0; k < 32; k++) if (p.active[k] && p.idx[k] == p.idx[l]) n++;
        depth = std::max(depth, n);
    }
}

int main(int argc, char **argv) {
    bool probes = argc < 2 || strcmp(argv[1], "timing") != 0;
    bool timing = argc < 2 || strcmp(argv[1], "probes") != 0;
    std::vector<Pattern> ps;
    auto add = [&](const char *name, auto f, auto act, auto val) {
        Pattern p; p.name = name;
        for (int l = 0; l < 32; l++) { p.idx[l] = f(l); p.active[l] = act(l); p.v[l] = val(l); }
        ps.push_back(p);
    };
    auto all = [](int) { return 1; };
    auto one = [](int) { return 1u; };
    auto lanev = [](int l) { return (unsigned)l + 1; };
    add("none", [](int l) { return l; }, [](int) { return 0; }, one);
    add("distinct-banks", [](int l) { return l; }, all, lanev);
    add("one-word", [](int) { return 0; }, all, lanev);
    add("one-word-values-1", [](int) { return 0; }, all, one);
    add("two-words-one-bank", [](int l) { return l < 16 ? 0 : 32; }, all, lanev);
    add("32-words-one-bank", [](int l) { return l * 32; }, all, lanev);
    add("2-words-one-bank-2-lanes", [](int l) { return l * 32; }, [](int l) { return l < 2; }, lanev);
    add("pairs-on-words", [](int l) { return l / 2; }, all, lanev);
    add("4-lanes-per-word-8-words-one-bank", [](int l) { return (l / 4) * 32; }, all, lanev);
    // Random bytes into 256 bins, all lanes (9.5/9.7/9.12 on uniform bytes), and the leaders of
    // the same draws (9.8: one lane per distinct bin, adding its peer count).
    for (int r = 0; r < 12; r++) {
        Pattern p; p.name = "uniform-256";
        for (int l = 0; l < 32; l++) { p.idx[l] = rnd() % 256; p.active[l] = 1; p.v[l] = 1 + l; }
        ps.push_back(p);
        Pattern q = p; q.name = "leaders-256";
        for (int l = 0; l < 32; l++) {
            int first = l, count = 0;
            for (int k = 0; k < 32; k++) if (p.idx[k] == p.idx[l]) { count++; first = std::min(first, k); }
            q.active[l] = first == l; q.v[l] = count;
        }
        ps.push_back(q);
    }
    int *d_idx, *d_act; unsigned *d_v, *d_out;
    CHECK(cudaMalloc(&d_idx, 128)); CHECK(cudaMalloc(&d_act, 128));
    CHECK(cudaMalloc(&d_v, 128)); CHECK(cudaMalloc(&d_out, 128));
    printf("launch,kernel,pattern,active,words_busiest_bank_minus_1,lanes_busiest_bank_minus_1,lanes_on_busiest_word\n");
    int launch = 0;
    const char *kinds[3] = {"popc", "add", "f32"};
    for (int k = 0; k < 3 && probes; k++) for (auto &p : ps) {
        CHECK(cudaMemcpy(d_idx, p.idx, 128, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_act, p.active, 128, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_v, p.v, 128, cudaMemcpyHostToDevice));
        if (k == 0) probe_popc<<<1, 32>>>(d_idx, d_act, d_v, d_out);
        if (k == 1) probe_add<<<1, 32>>>(d_idx, d_act, d_v, d_out);
        if (k == 2) probe_f32<<<1, 32>>>(d_idx, d_act, d_v, d_out);
        CHECK(cudaDeviceSynchronize());
        int words, lanes, depth, active = 0;
        models(p, words, lanes, depth);
        for (int l = 0; l < 32; l++) active += p.active[l];
        printf("%d,probe_%s,%s,%d,%d,%d,%d\n", launch++, kinds[k], p.name, active,
               std::max(words - 1, 0), std::max(lanes - 1, 0), depth);
    }

    // RED against ATOM on global memory.
    if (!timing) return 0;
    size_t n = 64u << 20;
    std::vector<unsigned char> h(n);
    unsigned char *d; unsigned *hist, *sink;
    CHECK(cudaMalloc(&d, n)); CHECK(cudaMalloc(&hist, 1024)); CHECK(cudaMalloc(&sink, 4));
    cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int input = 0; input < 2; input++) {
        for (size_t i = 0; i < n; i++) h[i] = input == 0 ? (unsigned char)(rnd() & 255) : 0;
        CHECK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
        float med[2];
        for (int kind = 0; kind < 2; kind++) {
            std::vector<float> t;
            for (int rep = 0; rep < 23; rep++) {
                CHECK(cudaMemset(hist, 0, 1024));
                CHECK(cudaEventRecord(a));
                if (kind == 0) global_red<<<sms * 8, 256>>>(d, n, hist);
                else global_atom<<<sms * 8, 256>>>(d, n, hist, sink);
                CHECK(cudaEventRecord(b)); CHECK(cudaEventSynchronize(b));
                float ms; CHECK(cudaEventElapsedTime(&ms, a, b));
                if (rep >= 3) t.push_back(ms);
            }
            std::sort(t.begin(), t.end());
            med[kind] = t[t.size() / 2];
        }
        fprintf(stderr, "global atomics, 64 MiB %s bytes, <<<%d, 256>>>: RED %.3f ms (%.0f GB/s), ATOM %.3f ms (%.0f GB/s), ATOM/RED time %.3f\n",
                input == 0 ? "uniform" : "one-value", sms * 8, med[0], n / med[0] / 1e6, med[1], n / med[1] / 1e6,
                med[1] / med[0]);
    }
    return 0;
}
