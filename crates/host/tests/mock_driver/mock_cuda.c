/*
 * A mock of the CUDA driver (libcuda.so.1) for gpu-host's tests on machines without a GPU.
 *
 * It implements the few dozen driver calls the `cuda` backend makes, with host memory as
 * "device" memory, so that tests/cuda_mock.rs can run the whole host path (driver loading
 * through the trampolines, context, module load and JIT log, kernel lookup, argument
 * marshalling, shared-memory opt-in, events, memory operations, sticky faults) in CI.
 * Kernels are not PTX here: each mock kernel below is a C function named like the
 * `#[kernel]` of the test, doing what its host body does.
 *
 * Environment: MOCK_CUINIT=<code> makes cuInit fail with that code; MOCK_CC=<major><minor>
 * (e.g. 61) is the device's compute capability instead of 8.6.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, NO_DEVICE = 100, INVALID_PTX = 218,
    INVALID_HANDLE = 400, NOT_FOUND = 500, ILLEGAL_ADDRESS = 700
};

struct ctx { int sticky; };
struct stream { int magic; };
struct event { double ms; };
struct module { char *ptx; };
struct func { struct module *m; char name[64]; int max_dynamic_shared; };

static int initialised;
static double clock_ms;          /* mock GPU time: each launch takes 0.25 ms */
/* A mock L2 of 1 MiB (attribute 38). The backend's flush kernel (gpu_host_l2_flush) reading
 * at least twice that leaves it cold: the next launch or copy takes its full time (0.25 ms,
 * 0.5 ms); one that follows no flush hits the cache and takes half. So a timed operation
 * that was not flushed first shows in the times the tests assert. */
static int flushed;
static double cold(double ms) {
    double t = flushed ? ms : ms / 2;
    flushed = 0;
    return t;
}
static struct ctx *current;

/* A GlobalSlice<T> kernel parameter, as the Rust side lays it out (repr(C)). */
struct slice { void *ptr; uint32_t len; uint32_t pad; };

CUresult cuInit(unsigned flags) {
    const char *e = getenv("MOCK_CUINIT");
    if (flags != 0) return INVALID_VALUE;
    if (e && atoi(e)) return atoi(e);
    initialised = 1;
    return OK;
}
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int *n) { if (!initialised) return NOT_INITIALIZED; *n = 1; return OK; }
CUresult cuDeviceGet(int *d, int ordinal) { if (ordinal != 0) return 101; *d = 0; return OK; }
CUresult cuDeviceGetName(char *name, int len, int dev) {
    (void)dev; strncpy(name, "Mock GPU (tests/mock_driver)", len); name[len - 1] = 0; return OK;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    (void)dev;
    switch (attr) {
    case 1: *v = 1024; return OK;        /* max threads per block */
    case 8: *v = 48 * 1024; return OK;   /* shared per block */
    case 10: *v = 32; return OK;         /* warp size */
    case 16: *v = 7; return OK;          /* SMs */
    case 38: *v = 1 << 20; return OK;    /* L2 */
    case 39: *v = 1536; return OK;       /* threads per SM */
    case 75: *v = getenv("MOCK_CC") ? atoi(getenv("MOCK_CC")) / 10 : 8; return OK; /* CC major */
    case 76: *v = getenv("MOCK_CC") ? atoi(getenv("MOCK_CC")) % 10 : 6; return OK; /* CC minor */
    case 97: *v = 99 * 1024; return OK;  /* shared per block, opt-in */
    default: *v = 0; return OK;
    }
}
CUresult cuCtxCreate_v2(struct ctx **c, unsigned flags, int dev) {
    (void)flags; (void)dev;
    *c = calloc(1, sizeof **c); current = *c; return OK;
}
CUresult cuCtxDestroy_v2(struct ctx *c) { if (current == c) current = NULL; free(c); return OK; }
CUresult cuCtxSetCurrent(struct ctx *c) { current = c; return OK; }
CUresult cuCtxGetCurrent(struct ctx **c) { *c = current; return OK; }
CUresult cuCtxSynchronize(void) { return current ? current->sticky : INVALID_VALUE; }

CUresult cuStreamCreateWithPriority(struct stream **s, unsigned flags, int prio) {
    (void)flags; (void)prio;
    *s = calloc(1, sizeof **s); (*s)->magic = 0x5eed; return OK;
}
CUresult cuStreamDestroy_v2(struct stream *s) { free(s); return OK; }
CUresult cuStreamSynchronize(struct stream *s) {
    if (!s || s->magic != 0x5eed) return INVALID_HANDLE;
    return current ? current->sticky : INVALID_VALUE;
}

CUresult cuEventCreate(struct event **e, unsigned flags) { (void)flags; *e = calloc(1, sizeof **e); return OK; }
CUresult cuEventDestroy_v2(struct event *e) { free(e); return OK; }
CUresult cuEventRecord(struct event *e, struct stream *s) { (void)s; e->ms = clock_ms; return OK; }
CUresult cuEventSynchronize(struct event *e) { (void)e; return current ? current->sticky : OK; }
CUresult cuEventElapsedTime(float *ms, struct event *start, struct event *end) {
    *ms = (float)(end->ms - start->ms); return OK;
}

#define STICKY() do { if (!current) return INVALID_VALUE; if (current->sticky) return current->sticky; } while (0)

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
    void *m;
    STICKY();
    if (bytes == 0) return INVALID_VALUE;
    if (posix_memalign(&m, 256, bytes)) return 2;
    memset(m, 0xA5, bytes);   /* not zeroed: the backend must zero it */
    *p = (CUdeviceptr)(uintptr_t)m; return OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) { STICKY(); free((void *)(uintptr_t)p); return OK; }
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) { STICKY(); memset((void *)(uintptr_t)p, v, n); return OK; }
CUresult cuMemsetD16_v2(CUdeviceptr p, unsigned short v, size_t n) {
    STICKY(); for (size_t i = 0; i < n; i++) ((uint16_t *)(uintptr_t)p)[i] = v; return OK;
}
CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n) {
    STICKY(); for (size_t i = 0; i < n; i++) ((uint32_t *)(uintptr_t)p)[i] = v; return OK;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { STICKY(); memcpy((void *)(uintptr_t)d, h, n); return OK; }
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { STICKY(); memcpy(h, (void *)(uintptr_t)d, n); return OK; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr src, size_t n) {
    STICKY(); memmove((void *)(uintptr_t)d, (void *)(uintptr_t)src, n); return OK;
}
/* The stream-ordered calls check their stream (the last argument) and, for the copy,
 * take 0.5 ms of mock GPU time. */
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t n, struct stream *s) {
    STICKY();
    if (!s || s->magic != 0x5eed) return INVALID_HANDLE;
    memmove((void *)(uintptr_t)d, (void *)(uintptr_t)src, n);
    clock_ms += cold(0.5);
    return OK;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, struct stream *s) {
    STICKY();
    if (!s || s->magic != 0x5eed) return INVALID_HANDLE;
    memset((void *)(uintptr_t)p, v, n);
    return OK;
}

/* Options as cuModuleLoadDataEx takes them: 5 = error log buffer, 6 = its size. */
CUresult cuModuleLoadDataEx(struct module **m, const void *image, unsigned n, int *opts, void **vals) {
    STICKY();
    if (strstr(image, "MOCK_INVALID")) {
        char *log = NULL; size_t size = 0;
        for (unsigned i = 0; i < n; i++) {
            if (opts[i] == 5) log = vals[i];
            if (opts[i] == 6) size = (size_t)(uintptr_t)vals[i];
        }
        if (log && size > 0) { strncpy(log, "ptxas mock: line 3: syntax error", size); log[size - 1] = 0; }
        return INVALID_PTX;
    }
    *m = calloc(1, sizeof **m); (*m)->ptx = strdup(image); return OK;
}
CUresult cuModuleUnload(struct module *m) { free(m->ptx); free(m); return OK; }
CUresult cuModuleGetFunction(struct func **f, struct module *m, const char *name) {
    char pat[80];
    STICKY();
    snprintf(pat, sizeof pat, ".entry %s(", name);
    if (!strstr(m->ptx, pat)) return NOT_FOUND;
    *f = calloc(1, sizeof **f); (*f)->m = m; strncpy((*f)->name, name, 63); return OK;
}
CUresult cuFuncSetAttribute(struct func *f, int attr, int value) {
    if (attr != 8) return INVALID_VALUE;
    if (value > 99 * 1024) return INVALID_VALUE;
    f->max_dynamic_shared = value; return OK;
}

/* The mock kernels; what the test's #[kernel]s of the same names do. */
CUresult cuLaunchKernel(struct func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, struct stream *s,
                        void **params, void **extra) {
    STICKY();
    /* The last four arguments come on the stack through the trampoline: check them. */
    if (!s || s->magic != 0x5eed || extra != NULL || params == NULL) return INVALID_VALUE;
    if (shared > 48 * 1024 && (unsigned)f->max_dynamic_shared < shared) return INVALID_VALUE;
    if (!strcmp(f->name, "gpu_host_l2_flush")) {  /* (src, vectors: u64, sink) */
        uint64_t vectors = *(uint64_t *)params[1];
        if (vectors * 16 >= (2u << 20)) flushed = 1;
        return OK;
    }
    clock_ms += cold(0.25);
    if (!strcmp(f->name, "mock_fill")) {          /* (out: GlobalSlice<u32>, base: u32) */
        struct slice *out = params[0];
        uint32_t base = *(uint32_t *)params[1];
        uint64_t threads = (uint64_t)gx * gy * gz * bx * by * bz;
        for (uint32_t i = 0; i < out->len && i < threads; i++) ((uint32_t *)out->ptr)[i] = base + i;
    } else if (!strcmp(f->name, "mock_shape")) {  /* (out: GlobalSlice<u32>) */
        struct slice *out = params[0];
        uint32_t v[9] = {gx, gy, gz, bx, by, bz, shared, (uint32_t)f->max_dynamic_shared, 0};
        memcpy(out->ptr, v, sizeof v < out->len * 4 ? sizeof v : out->len * 4);
    } else if (!strcmp(f->name, "mock_add")) {   /* (out: GlobalSlice<u32>): out[i] += 1 */
        struct slice *out = params[0];
        uint64_t threads = (uint64_t)gx * gy * gz * bx * by * bz;
        for (uint32_t i = 0; i < out->len && i < threads; i++) ((uint32_t *)out->ptr)[i] += 1;
    } else if (!strcmp(f->name, "mock_fault")) {
        current->sticky = ILLEGAL_ADDRESS;        /* reported at the next synchronisation */
    } else {
        return NOT_FOUND;
    }
    return OK;
}

CUresult cuGetErrorName(CUresult e, const char **s) {
    switch (e) {
    case 0: *s = "CUDA_SUCCESS"; return OK;
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return OK;
    case 100: *s = "CUDA_ERROR_NO_DEVICE"; return OK;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return OK;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return OK;
    case 700: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return OK;
    default: return INVALID_VALUE;
    }
}
CUresult cuGetErrorString(CUresult e, const char **s) {
    switch (e) {
    case 100: *s = "no CUDA-capable device is detected"; return OK;
    case 218: *s = "a PTX JIT compilation failed"; return OK;
    case 700: *s = "an illegal memory access was encountered"; return OK;
    default: return INVALID_VALUE;
    }
}
