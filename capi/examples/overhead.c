/*
 * overhead.c: the per-call cost of strider_operator_execute on the DML_SLICE1 page's 4x4 example (16 output
 * bytes, so the time is all overhead), median of 15 rounds of 200,000 calls, with default options and on the
 * calling thread only. Compare with the Rust API's `strider bench --filter doc_example` in the same session.
 *
 *   cargo build --release -p strider-capi
 *   cc -O2 -std=c99 -Icapi/include capi/examples/overhead.c -Ltarget/release -lstrider -Wl,-rpath,target/release -o overhead
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "strider.h"

enum { ROUNDS = 15, CALLS = 200000 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(void) {
    static const float input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint32_t in_sizes[4] = {1, 1, 4, 4}, out_sizes[4] = {1, 1, 2, 2};
    static const uint32_t offsets[4] = {0, 0, 0, 1}, window[4] = {1, 1, 4, 3};
    static const int32_t strides[4] = {1, 1, -2, 2};
    StriderBufferTensorDesc in = {STRIDER_TENSOR_DATA_TYPE_FLOAT32, 0, 4, in_sizes, NULL, 64, 0};
    StriderBufferTensorDesc out = {STRIDER_TENSOR_DATA_TYPE_FLOAT32, 0, 4, out_sizes, NULL, 16, 0};
    StriderTensorDesc in_tensor = {STRIDER_TENSOR_TYPE_BUFFER, &in}, out_tensor = {STRIDER_TENSOR_TYPE_BUFFER, &out};
    StriderSlice1OperatorDesc slice = {&in_tensor, &out_tensor, 4, offsets, window, strides};
    StriderOperatorDesc desc = {STRIDER_OPERATOR_SLICE1, &slice};
    StriderExecuteOptions sequential = {1, STRIDER_ISA_BEST};
    StriderOperator* op;
    float output[4];
    double times[2][ROUNDS];
    int mode, round, i;
    if (strider_operator_create(&desc, &op) != STRIDER_OK) {
        fprintf(stderr, "%s\n", strider_last_error_message());
        return 1;
    }
    for (round = 0; round < ROUNDS; round++) {
        for (mode = 0; mode < 2; mode++) {
            double start = now();
            for (i = 0; i < CALLS; i++) {
                StriderStatus s = mode == 0 ? strider_operator_execute(op, input, 64, output, 16)
                                            : strider_operator_execute_with(op, input, 64, output, 16, &sequential);
                if (s != STRIDER_OK) return 1;
            }
            times[mode][round] = (now() - start) / CALLS * 1e9;
        }
    }
    for (mode = 0; mode < 2; mode++) qsort(times[mode], ROUNDS, sizeof(double), by_value);
    printf("strider %s, 4x4 DML_SLICE1 example 2 (%g %g %g %g)\n", strider_version(), output[0], output[1],
           output[2], output[3]);
    printf("strider_operator_execute:                   %6.1f ns per call (median of %d x %d)\n",
           times[0][ROUNDS / 2], ROUNDS, CALLS);
    printf("strider_operator_execute_with(Threads = 1): %6.1f ns per call\n", times[1][ROUNDS / 2]);
    strider_operator_destroy(op);
    return 0;
}
