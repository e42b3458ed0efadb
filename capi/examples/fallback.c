/*
 * fallback.c: a DirectML-shaped program run on the CPU through Strider.
 *
 * The descriptions below are filled with DirectML's own names (DML_BUFFER_TENSOR_DESC, DML_OPERATOR_DESC,
 * DML_SLICE1_OPERATOR_DESC, ...) exactly as a DirectML program fills them; strider_dml.h maps those names onto
 * Strider's types, so the same code compiles with DirectML.h on Windows and against Strider elsewhere.
 *
 * Build (after `cargo build --release -p strider-capi`):
 *   cc -std=c99 -Icapi/include capi/examples/fallback.c -Ltarget/release -lstrider -Wl,-rpath,target/release -o fallback
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "strider_dml.h"

/* A packed or strided buffer tensor, its TotalTensorSizeInBytes from DMLCalcBufferTensorSize. */
static DML_BUFFER_TENSOR_DESC buffer_desc(DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes, const UINT* strides) {
    DML_BUFFER_TENSOR_DESC desc;
    desc.DataType = type;
    desc.Flags = DML_TENSOR_FLAG_NONE;
    desc.DimensionCount = rank;
    desc.Sizes = sizes;
    desc.Strides = strides;
    desc.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, rank, sizes, strides);
    desc.GuaranteedBaseOffsetAlignment = 0;
    return desc;
}

/* Creates, runs and destroys one operator; exits with the message on failure. */
static void run(const DML_OPERATOR_DESC* desc, const void* input, size_t input_bytes, void* output,
                size_t output_bytes) {
    StriderOperator* op;
    if (strider_operator_create(desc, &op) != STRIDER_OK ||
        strider_operator_execute(op, input, input_bytes, output, output_bytes) != STRIDER_OK) {
        fprintf(stderr, "strider: %s\n", strider_last_error_message());
        exit(1);
    }
    strider_operator_destroy(op);
}

static void print_floats(const char* title, const float* v, int rows, int cols) {
    int r, c;
    printf("%s\n", title);
    for (r = 0; r < rows; r++) {
        printf("  ");
        for (c = 0; c < cols; c++) printf("%6g", v[r * cols + c]);
        printf("\n");
    }
}

int main(void) {
    /* The input of the DML_SLICE1 page's examples: a 1x1x4x4 FLOAT32 tensor holding 1..16. */
    const float input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const UINT in_sizes[4] = {1, 1, 4, 4}, out_sizes[4] = {1, 1, 2, 2};
    const UINT offsets[4] = {0, 0, 0, 1}, window_sizes[4] = {1, 1, 4, 3};
    const INT positive[4] = {1, 1, 2, 2}, negative[4] = {1, 1, -2, 2};
    float output[4];

    DML_BUFFER_TENSOR_DESC in_buffer = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL);
    DML_BUFFER_TENSOR_DESC out_buffer = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL);
    DML_TENSOR_DESC in_tensor = {DML_TENSOR_TYPE_BUFFER, &in_buffer};
    DML_TENSOR_DESC out_tensor = {DML_TENSOR_TYPE_BUFFER, &out_buffer};
    DML_SLICE1_OPERATOR_DESC slice1 = {&in_tensor, &out_tensor, 4, offsets, window_sizes, positive};
    DML_OPERATOR_DESC op_desc = {DML_OPERATOR_SLICE1, &slice1};

    printf("strider %s\n", strider_version());
    run(&op_desc, input, sizeof input, output, sizeof output);
    print_floats("DML_SLICE1 example 1 (strides {1, 1, 2, 2}):", output, 2, 2);
    slice1.InputWindowStrides = negative;
    run(&op_desc, input, sizeof input, output, sizeof output);
    print_floats("DML_SLICE1 example 2 (strides {1, 1, -2, 2}):", output, 2, 2);

    {
        /* ELEMENT_WISE_IDENTITY as a layout change: a 2x2 RGB image, NHWC in memory, into packed NCHW planes. Sizes
           are always in logical NCHW order; the NHWC layout is in the strides. */
        const UINT sizes[4] = {1, 3, 2, 2}, nhwc_strides[4] = {12, 1, 6, 3};
        const uint8_t pixels[12] = {10, 20, 30, 11, 21, 31, 12, 22, 32, 13, 23, 33};
        uint8_t planes[12];
        int i;
        DML_BUFFER_TENSOR_DESC nhwc = buffer_desc(DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, nhwc_strides);
        DML_BUFFER_TENSOR_DESC nchw = buffer_desc(DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, NULL);
        DML_TENSOR_DESC src = {DML_TENSOR_TYPE_BUFFER, &nhwc}, dst = {DML_TENSOR_TYPE_BUFFER, &nchw};
        DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC identity = {&src, &dst, NULL};
        DML_OPERATOR_DESC desc = {DML_OPERATOR_ELEMENT_WISE_IDENTITY, &identity};
        run(&desc, pixels, sizeof pixels, planes, sizeof planes);
        printf("DML_ELEMENT_WISE_IDENTITY NHWC -> NCHW:\n  ");
        for (i = 0; i < 12; i++) printf("%d%s", planes[i], i % 4 == 3 ? (i == 11 ? "\n" : " | ") : " ");
    }
    {
        /* DML_CAST UINT8 -> FLOAT32. The u8 tensor's TotalTensorSizeInBytes is rounded up to 4 bytes, so its
           buffer holds 8 bytes for 6 elements. */
        const UINT sizes[1] = {6};
        const uint8_t bytes[8] = {0, 1, 2, 127, 128, 255, 0, 0};
        float values[6];
        DML_BUFFER_TENSOR_DESC u8 = buffer_desc(DML_TENSOR_DATA_TYPE_UINT8, 1, sizes, NULL);
        DML_BUFFER_TENSOR_DESC f32 = buffer_desc(DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL);
        DML_TENSOR_DESC src = {DML_TENSOR_TYPE_BUFFER, &u8}, dst = {DML_TENSOR_TYPE_BUFFER, &f32};
        DML_CAST_OPERATOR_DESC cast = {&src, &dst};
        DML_OPERATOR_DESC desc = {DML_OPERATOR_CAST, &cast};
        run(&desc, bytes, sizeof bytes, values, sizeof values);
        print_floats("DML_CAST UINT8 -> FLOAT32:", values, 1, 6);
    }
    {
        /* A mistake gets a status and a message naming the DirectML field. */
        StriderOperator* op;
        in_buffer.TotalTensorSizeInBytes = 0;
        if (strider_operator_create(&op_desc, &op) != STRIDER_OK)
            printf("an invalid description: %s\n", strider_last_error_message());
    }
    return 0;
}
