/*
 * The C interface from C99: struct layouts, every operator against naive loops written from the spec, both spec
 * examples, every error class, NULL pointers, in-place identity, options, and concurrent execution from threads.
 * Built and run (against the shared and the static library, and under valgrind) by capi/tests/c.rs.
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strider.h"

/* C99 has no static_assert: a negative array size stops the build. */
#define STATIC_CHECK(name, cond) typedef char static_check_##name[(cond) ? 1 : -1]

/* DirectML's layouts on 64-bit targets (field types from DirectML.h: enums and UINT are 4 bytes, pointers 8). */
STATIC_CHECK(buffer_size, sizeof(StriderBufferTensorDesc) == 48);
STATIC_CHECK(buffer_data_type, offsetof(StriderBufferTensorDesc, DataType) == 0);
STATIC_CHECK(buffer_flags, offsetof(StriderBufferTensorDesc, Flags) == 4);
STATIC_CHECK(buffer_count, offsetof(StriderBufferTensorDesc, DimensionCount) == 8);
STATIC_CHECK(buffer_sizes, offsetof(StriderBufferTensorDesc, Sizes) == 16);
STATIC_CHECK(buffer_strides, offsetof(StriderBufferTensorDesc, Strides) == 24);
STATIC_CHECK(buffer_total, offsetof(StriderBufferTensorDesc, TotalTensorSizeInBytes) == 32);
STATIC_CHECK(buffer_alignment, offsetof(StriderBufferTensorDesc, GuaranteedBaseOffsetAlignment) == 40);
STATIC_CHECK(tensor_size, sizeof(StriderTensorDesc) == 16);
STATIC_CHECK(tensor_type, offsetof(StriderTensorDesc, Type) == 0);
STATIC_CHECK(tensor_desc, offsetof(StriderTensorDesc, Desc) == 8);
STATIC_CHECK(operator_size, sizeof(StriderOperatorDesc) == 16);
STATIC_CHECK(operator_type, offsetof(StriderOperatorDesc, Type) == 0);
STATIC_CHECK(operator_desc, offsetof(StriderOperatorDesc, Desc) == 8);
STATIC_CHECK(scale_bias_size, sizeof(StriderScaleBias) == 8);
STATIC_CHECK(scale_bias_bias, offsetof(StriderScaleBias, Bias) == 4);
STATIC_CHECK(identity_size, sizeof(StriderElementWiseIdentityOperatorDesc) == 24);
STATIC_CHECK(identity_output, offsetof(StriderElementWiseIdentityOperatorDesc, OutputTensor) == 8);
STATIC_CHECK(identity_scale_bias, offsetof(StriderElementWiseIdentityOperatorDesc, ScaleBias) == 16);
STATIC_CHECK(slice_size, sizeof(StriderSliceOperatorDesc) == 48);
STATIC_CHECK(slice_output, offsetof(StriderSliceOperatorDesc, OutputTensor) == 8);
STATIC_CHECK(slice_count, offsetof(StriderSliceOperatorDesc, DimensionCount) == 16);
STATIC_CHECK(slice_offsets, offsetof(StriderSliceOperatorDesc, Offsets) == 24);
STATIC_CHECK(slice_sizes, offsetof(StriderSliceOperatorDesc, Sizes) == 32);
STATIC_CHECK(slice_strides, offsetof(StriderSliceOperatorDesc, Strides) == 40);
STATIC_CHECK(slice1_size, sizeof(StriderSlice1OperatorDesc) == 48);
STATIC_CHECK(slice1_count, offsetof(StriderSlice1OperatorDesc, DimensionCount) == 16);
STATIC_CHECK(slice1_offsets, offsetof(StriderSlice1OperatorDesc, InputWindowOffsets) == 24);
STATIC_CHECK(slice1_sizes, offsetof(StriderSlice1OperatorDesc, InputWindowSizes) == 32);
STATIC_CHECK(slice1_strides, offsetof(StriderSlice1OperatorDesc, InputWindowStrides) == 40);
STATIC_CHECK(cast_size, sizeof(StriderCastOperatorDesc) == 16);
STATIC_CHECK(cast_output, offsetof(StriderCastOperatorDesc, OutputTensor) == 8);
STATIC_CHECK(status_size, sizeof(StriderStatus) == 4);

static int failures = 0;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            if (failures++ < 20)                                                         \
                fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
                        strider_last_error_message());                                   \
        }                                                                                \
    } while (0)

/* A status and a message that mentions `needle`. */
#define CHECK_ERROR(call, status, needle)                                                \
    do {                                                                                 \
        StriderStatus got_ = (call);                                                     \
        const char* msg_ = strider_last_error_message();                                 \
        if (got_ != (status) || strstr(msg_, (needle)) == NULL) {                        \
            fprintf(stderr, "%s:%d: %s returned %d with \"%s\"; expected %d mentioning \"%s\"\n", __FILE__, \
                    __LINE__, #call, (int)got_, msg_, (int)(status), (needle));          \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* A buffer tensor and the tensor desc that points to it. */
typedef struct {
    uint32_t sizes[8];
    uint32_t strides[8];
    StriderBufferTensorDesc buffer;
    StriderTensorDesc tensor;
} Tensor;

static void tensor_init(Tensor* t, uint32_t data_type, uint32_t rank, const uint32_t* sizes, const uint32_t* strides) {
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides) memcpy(t->strides, strides, rank * sizeof *strides);
    t->buffer.DataType = data_type;
    t->buffer.Flags = STRIDER_TENSOR_FLAG_NONE;
    t->buffer.DimensionCount = rank;
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = strides ? t->strides : NULL;
    t->buffer.TotalTensorSizeInBytes = strider_calc_buffer_tensor_size(data_type, rank, sizes, strides);
    t->buffer.GuaranteedBaseOffsetAlignment = 0;
    t->tensor.Type = STRIDER_TENSOR_TYPE_BUFFER;
    t->tensor.Desc = &t->buffer;
}

static StriderOperator* create(uint32_t type, const void* desc) {
    StriderOperatorDesc op_desc;
    StriderOperator* op = NULL;
    op_desc.Type = type;
    op_desc.Desc = desc;
    if (strider_operator_create(&op_desc, &op) != STRIDER_OK) {
        fprintf(stderr, "create failed: %s\n", strider_last_error_message());
        failures++;
    }
    return op;
}

static const float spec_input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint32_t spec_in_sizes[4] = {1, 1, 4, 4};
static const uint32_t spec_out_sizes[4] = {1, 1, 2, 2};

static void spec_examples(void) {
    static const uint32_t offsets[4] = {0, 0, 0, 1};
    static const uint32_t window[4] = {1, 1, 4, 3};
    static const int32_t positive[4] = {1, 1, 2, 2};
    static const int32_t negative[4] = {1, 1, -2, 2};
    const float expect1[4] = {2, 4, 10, 12};
    const float expect2[4] = {14, 16, 6, 8};
    Tensor in, out;
    StriderSlice1OperatorDesc s;
    StriderOperator* op;
    float result[4];
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_in_sizes, NULL);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_out_sizes, NULL);
    s.InputTensor = &in.tensor;
    s.OutputTensor = &out.tensor;
    s.DimensionCount = 4;
    s.InputWindowOffsets = offsets;
    s.InputWindowSizes = window;

    s.InputWindowStrides = positive;
    op = create(STRIDER_OPERATOR_SLICE1, &s);
    memset(result, 0, sizeof result);
    CHECK(strider_operator_execute(op, spec_input, sizeof spec_input, result, sizeof result) == STRIDER_OK);
    CHECK(memcmp(result, expect1, sizeof result) == 0);
    CHECK(strcmp(strider_last_error_message(), "") == 0);
    strider_operator_destroy(op);

    s.InputWindowStrides = negative;
    op = create(STRIDER_OPERATOR_SLICE1, &s);
    memset(result, 0, sizeof result);
    CHECK(strider_operator_execute(op, spec_input, sizeof spec_input, result, sizeof result) == STRIDER_OK);
    CHECK(memcmp(result, expect2, sizeof result) == 0);
    strider_operator_destroy(op);
}

static void slice(void) {
    /* DML_SLICE: Output[c] = Input[Offsets + Strides * c], on a padded input (row pitch 6). */
    static const uint32_t in_strides[4] = {24, 24, 6, 1};
    static const uint32_t offsets[4] = {0, 0, 1, 0};
    static const uint32_t sizes[4] = {1, 1, 2, 2};
    static const uint32_t strides[4] = {1, 1, 2, 3};
    float input[24], result[4];
    const float expect[4] = {6, 9, 18, 21};
    int i;
    Tensor in, out;
    StriderSliceOperatorDesc s;
    StriderOperator* op;
    for (i = 0; i < 24; i++) input[i] = (float)i;
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_in_sizes, in_strides);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_out_sizes, NULL);
    CHECK(in.buffer.TotalTensorSizeInBytes == 4 * (3 * 6 + 3 + 1));
    s.InputTensor = &in.tensor;
    s.OutputTensor = &out.tensor;
    s.DimensionCount = 4;
    s.Offsets = offsets;
    s.Sizes = sizes;
    s.Strides = strides;
    op = create(STRIDER_OPERATOR_SLICE, &s);
    CHECK(strider_operator_execute(op, input, sizeof(float) * 22, result, sizeof result) == STRIDER_OK);
    CHECK(memcmp(result, expect, sizeof result) == 0);
    strider_operator_destroy(op);
}

/* NHWC u8 image {N, C, H, W} = {2, 3, 5, 7} into packed NCHW, checked against a loop over coordinates. */
enum { N = 2, C = 3, H = 5, W = 7, COUNT = N * C * H * W, BYTES = (COUNT + 3) / 4 * 4 };
static const uint32_t image_sizes[4] = {N, C, H, W};
static const uint32_t nhwc_strides[4] = {H * W * C, 1, W * C, C};

/* In place, each buffer length is checked against its own tensor: an output_bytes shorter than the output's
 * TotalTensorSizeInBytes is STRIDER_BUFFER_TOO_SMALL even when input_bytes is long enough, and nothing is written
 * (the bytes past output_bytes are read-only here: a write there would crash the test). */
static void in_place_checks_each_length(void) {
    const uint32_t four[1] = {4};
    long page = sysconf(_SC_PAGESIZE);
    unsigned char* map;
    float* x;
    Tensor t;
    StriderElementWiseIdentityOperatorDesc d;
    StriderScaleBias sb = {2.0f, 1.0f};
    StriderOperator* op;
    map = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    if (map == MAP_FAILED) return;
    x = (float*)(map + page - 8); /* elements 0, 1 writable; 2, 3 on the next page */
    x[0] = 1.0f;
    x[1] = 2.0f;
    ((float*)(map + page))[0] = 3.0f;
    ((float*)(map + page))[1] = 4.0f;
    CHECK(mprotect(map + page, (size_t)page, PROT_READ) == 0);
    tensor_init(&t, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 1, four, NULL);
    CHECK(t.buffer.TotalTensorSizeInBytes == 16);
    d.InputTensor = &t.tensor;
    d.OutputTensor = &t.tensor;
    d.ScaleBias = &sb;
    op = create(STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY, &d);
    CHECK_ERROR(strider_operator_execute(op, x, 16, x, 8), STRIDER_BUFFER_TOO_SMALL, "output buffer holds 8 bytes");
    CHECK_ERROR(strider_operator_execute(op, x, 8, x, 16), STRIDER_BUFFER_TOO_SMALL, "input buffer holds 8 bytes");
    CHECK(x[0] == 1.0f && x[1] == 2.0f && x[2] == 3.0f && x[3] == 4.0f);
    strider_operator_destroy(op);
    CHECK(munmap(map, (size_t)(2 * page)) == 0);
}

static void identity(void) {
    uint8_t pixels[BYTES], planes[BYTES]; /* TotalTensorSizeInBytes: rounded up to 4 bytes */
    float f_in[COUNT], f_out[COUNT];
    int n, c, h, w, i;
    Tensor in, out;
    StriderElementWiseIdentityOperatorDesc d;
    StriderScaleBias sb;
    StriderOperator* op;
    for (i = 0; i < COUNT; i++) pixels[i] = (uint8_t)(i * 7 + 3);
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_UINT8, 4, image_sizes, nhwc_strides);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_UINT8, 4, image_sizes, NULL);
    d.InputTensor = &in.tensor;
    d.OutputTensor = &out.tensor;
    d.ScaleBias = NULL;
    op = create(STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY, &d);
    CHECK(strider_operator_execute(op, pixels, sizeof pixels, planes, sizeof planes) == STRIDER_OK);
    for (n = 0; n < N; n++)
        for (c = 0; c < C; c++)
            for (h = 0; h < H; h++)
                for (w = 0; w < W; w++)
                    CHECK(planes[((n * C + c) * H + h) * W + w] ==
                          pixels[n * nhwc_strides[0] + c + h * nhwc_strides[2] + w * nhwc_strides[3]]);
    strider_operator_destroy(op);

    /* DML_SCALE_BIAS on f32: x * 0.5 + 1, exact for these values. */
    for (i = 0; i < COUNT; i++) f_in[i] = (float)i;
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, image_sizes, NULL);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, image_sizes, NULL);
    sb.Scale = 0.5f;
    sb.Bias = 1.0f;
    d.ScaleBias = &sb;
    op = create(STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY, &d);
    CHECK(strider_operator_execute(op, f_in, sizeof f_in, f_out, sizeof f_out) == STRIDER_OK);
    for (i = 0; i < COUNT; i++) CHECK(f_out[i] == (float)i * 0.5f + 1.0f);
    /* In place: input == output. */
    CHECK(strider_operator_execute(op, f_in, sizeof f_in, f_in, sizeof f_in) == STRIDER_OK);
    for (i = 0; i < COUNT; i++) CHECK(f_in[i] == f_out[i]);
    /* Overlapping but not identical buffers are refused, and nothing is written. */
    memcpy(f_out, f_in, sizeof f_in);
    CHECK_ERROR(strider_operator_execute(op, f_in, sizeof f_in - 4 * sizeof(float), f_in + 4,
                                         sizeof f_in - 4 * sizeof(float)),
                STRIDER_INVALID_ARGUMENT, "overlap");
    CHECK(memcmp(f_in, f_out, sizeof f_in) == 0);
    strider_operator_destroy(op);
    in_place_checks_each_length();
}

static void cast(void) {
    uint8_t bytes[BYTES];
    float result[COUNT];
    uint16_t halves[4];
    const float f[4] = {1.5f, -2.0f, 65504.0f, 0.0f};
    const uint16_t expect_halves[4] = {0x3E00, 0xC000, 0x7BFF, 0x0000};
    const uint32_t four = 4;
    int n, c, h, w;
    Tensor in, out;
    StriderCastOperatorDesc d;
    StriderOperator* op;
    for (n = 0; n < COUNT; n++) bytes[n] = (uint8_t)(255 - n);
    /* u8 NHWC to f32 NCHW: cast and layout change at once. */
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_UINT8, 4, image_sizes, nhwc_strides);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, image_sizes, NULL);
    d.InputTensor = &in.tensor;
    d.OutputTensor = &out.tensor;
    op = create(STRIDER_OPERATOR_CAST, &d);
    CHECK(strider_operator_execute(op, bytes, sizeof bytes, result, sizeof result) == STRIDER_OK);
    for (n = 0; n < N; n++)
        for (c = 0; c < C; c++)
            for (h = 0; h < H; h++)
                for (w = 0; w < W; w++)
                    CHECK(result[((n * C + c) * H + h) * W + w] ==
                          (float)bytes[n * nhwc_strides[0] + c + h * nhwc_strides[2] + w * nhwc_strides[3]]);
    strider_operator_destroy(op);
    /* f32 to f16 bits. */
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 1, &four, NULL);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT16, 1, &four, NULL);
    op = create(STRIDER_OPERATOR_CAST, &d);
    CHECK(strider_operator_execute(op, f, sizeof f, halves, sizeof halves) == STRIDER_OK);
    CHECK(memcmp(halves, expect_halves, sizeof halves) == 0);
    strider_operator_destroy(op);
}

static void calc_buffer_tensor_size(void) {
    static const uint32_t sizes[3] = {2, 2, 3};
    static const uint32_t padded[3] = {12, 5, 1};
    static const uint32_t zero[3] = {2, 0, 3};
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 3, sizes, NULL) == 12);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_FLOAT16, 3, sizes, NULL) == 24);
    /* (12 + 5 + 2 + 1) elements of 1 byte, rounded up to a multiple of 4. */
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_INT8, 3, sizes, padded) == 20);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 1, sizes, NULL) == 4);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UNKNOWN, 3, sizes, NULL) == 0);
    CHECK(strstr(strider_last_error_message(), "DataType") != NULL);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 0, sizes, NULL) == 0);
    CHECK(strstr(strider_last_error_message(), "DimensionCount is 0") != NULL);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 9, sizes, NULL) == 0);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 3, NULL, NULL) == 0);
    CHECK(strstr(strider_last_error_message(), "Sizes is NULL") != NULL);
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 3, zero, NULL) == 0);
    CHECK(strstr(strider_last_error_message(), "size of dimension 1 is 0") != NULL);
    {
        /* sizes whose bytes overflow 64 bits: 0 and a message, never a wrapped size */
        static const uint32_t huge[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 2};
        static const uint32_t huge_strides[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 1};
        CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_FLOAT64, 4, huge, NULL) == 0);
        CHECK(strstr(strider_last_error_message(), "32-bit strides") != NULL);
        CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_FLOAT64, 4, huge, huge_strides) == 0);
        CHECK(strstr(strider_last_error_message(), "more bytes than the address space holds") != NULL);
    }
    CHECK(strider_calc_buffer_tensor_size(STRIDER_TENSOR_DATA_TYPE_UINT8, 3, sizes, NULL) == 12);
    CHECK(strcmp(strider_last_error_message(), "") == 0);
}

/* Every validation rule of the C layer, and one of each class from the operators. */
static void errors(void) {
    static const uint32_t offsets[4] = {0, 0, 0, 1};
    static const uint32_t window[4] = {1, 1, 4, 3};
    static const uint32_t too_wide[4] = {1, 1, 4, 4};
    static const int32_t strides[4] = {1, 1, 2, 2};
    static const int32_t zero_stride[4] = {1, 1, 0, 2};
    static const uint32_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    Tensor in, out;
    StriderSlice1OperatorDesc s;
    StriderOperatorDesc desc;
    StriderOperator* op = (StriderOperator*)&desc; /* overwritten with NULL on failure */
    StriderElementWiseIdentityOperatorDesc id;
    StriderScaleBias sb = {2.0f, 0.0f};
    StriderExecuteOptions options = {0, 0};
    float* input = (float*)malloc(20 * sizeof(float)); /* malloc: aligned to 16 bytes */
    float result[4] = {-1, -1, -1, -1};
    memcpy(input, spec_input, sizeof spec_input);

    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_in_sizes, NULL);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_out_sizes, NULL);
    s.InputTensor = &in.tensor;
    s.OutputTensor = &out.tensor;
    s.DimensionCount = 4;
    s.InputWindowOffsets = offsets;
    s.InputWindowSizes = window;
    s.InputWindowStrides = strides;
    desc.Type = STRIDER_OPERATOR_SLICE1;
    desc.Desc = &s;

    CHECK_ERROR(strider_operator_create(NULL, &op), STRIDER_INVALID_ARGUMENT, "desc is NULL");
    CHECK(op == NULL);
    CHECK_ERROR(strider_operator_create(&desc, NULL), STRIDER_INVALID_ARGUMENT, "out is NULL");
    desc.Desc = NULL;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "desc->Desc is NULL");
    desc.Desc = &s;
    desc.Type = 4; /* DML_OPERATOR_ELEMENT_WISE_ADD: not run by Strider */
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "desc->Type is 4");
    desc.Type = STRIDER_OPERATOR_SLICE1;

    s.InputTensor = NULL;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "InputTensor is NULL");
    s.InputTensor = &in.tensor;
    in.tensor.Type = 2;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "InputTensor->Type is 2");
    in.tensor.Type = STRIDER_TENSOR_TYPE_BUFFER;
    in.tensor.Desc = NULL;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "InputTensor->Desc is NULL");
    in.tensor.Desc = &in.buffer;
    in.buffer.DataType = 12;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "InputTensor->Desc->DataType is 12");
    in.buffer.DataType = STRIDER_TENSOR_DATA_TYPE_FLOAT32;
    in.buffer.Flags = 2;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "InputTensor->Desc->Flags is 0x2");
    in.buffer.Flags = STRIDER_TENSOR_FLAG_OWNED_BY_DML; /* accepted */
    out.buffer.DimensionCount = 0;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "DimensionCount is 0");
    out.buffer.DimensionCount = 9;
    out.buffer.Sizes = nine;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "DimensionCount is 9");
    out.buffer.DimensionCount = 4;
    out.buffer.Sizes = NULL;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "OutputTensor->Desc->Sizes is NULL");
    out.buffer.Sizes = out.sizes;
    in.buffer.TotalTensorSizeInBytes = 0;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "TotalTensorSizeInBytes 0");
    in.buffer.TotalTensorSizeInBytes = 60;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "TotalTensorSizeInBytes 60");
    in.buffer.TotalTensorSizeInBytes = 64;
    in.buffer.GuaranteedBaseOffsetAlignment = 12;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "GuaranteedBaseOffsetAlignment 12");
    in.buffer.GuaranteedBaseOffsetAlignment = 2; /* below the element size */
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "GuaranteedBaseOffsetAlignment 2");
    in.buffer.GuaranteedBaseOffsetAlignment = 16;

    /* Operator rules, through the Rust API's messages. */
    s.DimensionCount = 3;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "window_offsets has 3 entries");
    s.DimensionCount = 0;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "DimensionCount is 0");
    s.DimensionCount = 4;
    s.InputWindowStrides = NULL;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "InputWindowStrides is NULL");
    s.InputWindowStrides = zero_stride;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "window stride of dimension 2 is 0");
    s.InputWindowStrides = strides;
    s.InputWindowOffsets = too_wide; /* offset 1 + size 3 fits; offsets {1,1,..} do not */
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_INVALID_ARGUMENT, "DML_OPERATOR_SLICE1: the window");
    s.InputWindowOffsets = offsets;
    CHECK(op == NULL);

    /* A valid operator, then execution errors. */
    CHECK(strider_operator_create(&desc, &op) == STRIDER_OK);
    CHECK_ERROR(strider_operator_execute(NULL, input, sizeof spec_input, result, sizeof result), STRIDER_INVALID_ARGUMENT,
                "op is NULL");
    CHECK_ERROR(strider_operator_execute(op, NULL, sizeof spec_input, result, sizeof result), STRIDER_INVALID_ARGUMENT,
                "input is NULL");
    CHECK_ERROR(strider_operator_execute(op, input, sizeof spec_input, NULL, sizeof result), STRIDER_INVALID_ARGUMENT,
                "output is NULL");
    CHECK_ERROR(strider_operator_execute(op, input, 63, result, sizeof result), STRIDER_BUFFER_TOO_SMALL,
                "input buffer holds 63 bytes");
    CHECK_ERROR(strider_operator_execute(op, input, sizeof spec_input, result, 15), STRIDER_BUFFER_TOO_SMALL,
                "output buffer holds 15 bytes");
    CHECK(result[0] == -1 && result[3] == -1); /* nothing written */
    if (((uintptr_t)input & 15) == 0) {
        CHECK_ERROR(strider_operator_execute(op, input + 1, sizeof spec_input, result, sizeof result),
                    STRIDER_INVALID_ARGUMENT, "not aligned to the 16 bytes");
    }
    options.Isa = 99;
    CHECK_ERROR(strider_operator_execute_with(op, input, sizeof spec_input, result, sizeof result, &options),
                STRIDER_INVALID_ARGUMENT, "options->Isa is 99");
    options.Isa = STRIDER_ISA_BEST;
    options.Threads = STRIDER_MAX_THREADS + 1;
    CHECK_ERROR(strider_operator_execute_with(op, input, sizeof spec_input, result, sizeof result, &options),
                STRIDER_INVALID_ARGUMENT, "options->Threads is 257");
    if (strider_best_isa() < STRIDER_ISA_AVX512_VBMI) {
        options.Threads = 0;
        options.Isa = STRIDER_ISA_AVX512_VBMI;
        CHECK_ERROR(strider_operator_execute_with(op, input, sizeof spec_input, result, sizeof result, &options),
                    STRIDER_UNSUPPORTED, "not available on this CPU");
    }
    CHECK(result[0] == -1 && result[3] == -1);
    strider_operator_destroy(op);

    /* ScaleBias on integer tensors: valid DirectML, not run here. */
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_UINT8, 4, spec_in_sizes, NULL);
    id.InputTensor = &in.tensor;
    id.OutputTensor = &in.tensor;
    id.ScaleBias = &sb;
    desc.Type = STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY;
    desc.Desc = &id;
    CHECK_ERROR(strider_operator_create(&desc, &op), STRIDER_UNSUPPORTED, "DML_SCALE_BIAS does not accept UINT8");
    strider_operator_destroy(NULL);
    free(input);
}

/* Every instruction set up to the best and every thread choice give the same bytes. */
static void options(void) {
    static const uint32_t offsets[4] = {0, 0, 0, 1};
    static const uint32_t window[4] = {1, 1, 4, 3};
    static const int32_t strides[4] = {1, 1, -2, 2};
    const float expect[4] = {14, 16, 6, 8};
    const uint32_t threads[4] = {0, 1, 2, 3};
    uint32_t isa, t;
    float result[4];
    Tensor in, out;
    StriderSlice1OperatorDesc s;
    StriderExecuteOptions o;
    StriderOperator* op;
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_in_sizes, NULL);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, spec_out_sizes, NULL);
    s.InputTensor = &in.tensor;
    s.OutputTensor = &out.tensor;
    s.DimensionCount = 4;
    s.InputWindowOffsets = offsets;
    s.InputWindowSizes = window;
    s.InputWindowStrides = strides;
    op = create(STRIDER_OPERATOR_SLICE1, &s);
    CHECK(strider_best_isa() >= STRIDER_ISA_SCALAR && strider_best_isa() <= STRIDER_ISA_AVX512_VBMI);
    for (isa = STRIDER_ISA_BEST; isa <= strider_best_isa(); isa++) {
        for (t = 0; t < 4; t++) {
            o.Isa = isa;
            o.Threads = threads[t];
            memset(result, 0, sizeof result);
            CHECK(strider_operator_execute_with(op, spec_input, sizeof spec_input, result, sizeof result, &o) ==
                  STRIDER_OK);
            CHECK(memcmp(result, expect, sizeof result) == 0);
        }
    }
    CHECK(strider_operator_execute_with(op, spec_input, sizeof spec_input, result, sizeof result, NULL) == STRIDER_OK);
    strider_operator_destroy(op);
}

/* One operator shared by several threads, each with its own buffers; errors stay per thread. */
enum { ROWS = 256, COLS = 1000, THREADS = 6, ROUNDS = 20 };
typedef struct {
    const StriderOperator* op;
    const uint16_t* input;
    int index;
    int bad;
} Job;

static void* worker(void* arg) {
    Job* job = (Job*)arg;
    uint16_t* out = (uint16_t*)malloc(sizeof(uint16_t) * ROWS * COLS / 2);
    StriderExecuteOptions o = {0, 0};
    int round, r, c;
    o.Threads = (uint32_t)(job->index % 3);
    for (round = 0; round < ROUNDS; round++) {
        memset(out, 0, sizeof(uint16_t) * ROWS * COLS / 2);
        if (strider_operator_execute_with(job->op, job->input, sizeof(uint16_t) * ROWS * COLS, out,
                                          sizeof(uint16_t) * ROWS * COLS / 2, &o) != STRIDER_OK) {
            job->bad++;
            continue;
        }
        /* Output [r][c] = input[ROWS-1-r][2c+1]: rows flipped, odd columns. */
        for (r = 0; r < ROWS; r++)
            for (c = 0; c < COLS / 2; c++)
                if (out[r * (COLS / 2) + c] != job->input[(ROWS - 1 - r) * COLS + 2 * c + 1]) job->bad++;
        if (job->index == 0) { /* an error on this thread only */
            if (strider_operator_execute(job->op, job->input, 2, out, 2) != STRIDER_BUFFER_TOO_SMALL) job->bad++;
        } else if (strcmp(strider_last_error_message(), "") != 0) {
            job->bad++;
        }
    }
    free(out);
    return NULL;
}

static void concurrency(void) {
    const uint32_t in_sizes[2] = {ROWS, COLS}, out_sizes[2] = {ROWS, COLS / 2};
    const uint32_t offsets[2] = {0, 1}, window[2] = {ROWS, COLS - 1};
    const int32_t strides[2] = {-1, 2};
    uint16_t* input = (uint16_t*)malloc(sizeof(uint16_t) * ROWS * COLS);
    pthread_t threads[THREADS];
    Job jobs[THREADS];
    Tensor in, out;
    StriderSlice1OperatorDesc s;
    StriderOperator* op;
    int i;
    for (i = 0; i < ROWS * COLS; i++) input[i] = (uint16_t)(i * 2654435761u >> 7);
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_UINT16, 2, in_sizes, NULL);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_UINT16, 2, out_sizes, NULL);
    s.InputTensor = &in.tensor;
    s.OutputTensor = &out.tensor;
    s.DimensionCount = 2;
    s.InputWindowOffsets = offsets;
    s.InputWindowSizes = window;
    s.InputWindowStrides = strides;
    op = create(STRIDER_OPERATOR_SLICE1, &s);
    for (i = 0; i < THREADS; i++) {
        jobs[i].op = op;
        jobs[i].input = input;
        jobs[i].index = i;
        jobs[i].bad = 0;
        CHECK(pthread_create(&threads[i], NULL, worker, &jobs[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        CHECK(jobs[i].bad == 0);
    }
    strider_operator_destroy(op);
    free(input);
}

/* Strider's preprocessing: a flat BGR image resized (2:1 area), channels reversed, scaled, into f32 planes; then
   letterboxed onto a square canvas; then the errors. */
static void preprocess(void) {
    enum { PH = 12, PW = 16 };
    static uint8_t pixels[PH * PW * 3];
    static float planes[3 * 16 * 16];
    const uint32_t in_sizes[4] = {1, 3, PH, PW}, in_strides[4] = {PH * PW * 3, 1, PW * 3, 3};
    const uint32_t half_sizes[4] = {1, 3, PH / 2, PW / 2}, square[4] = {1, 3, 16, 16};
    const float scale = 1.0f / 255.0f, bias = 0.0f;
    int i, c;
    Tensor in, out;
    StriderPreprocessOperatorDesc d;
    StriderOperator* op;
    for (i = 0; i < PH * PW; i++) {
        pixels[3 * i] = 10;     /* B */
        pixels[3 * i + 1] = 20; /* G */
        pixels[3 * i + 2] = 30; /* R */
    }
    tensor_init(&in, STRIDER_TENSOR_DATA_TYPE_UINT8, 4, in_sizes, in_strides);
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, half_sizes, NULL);
    memset(&d, 0, sizeof d);
    d.InputTensor = &in.tensor;
    d.OutputTensor = &out.tensor;
    d.Resize = STRIDER_RESIZE_STRETCH;
    d.ResizeHeight = PH / 2;
    d.ResizeWidth = PW / 2;
    d.Filter = STRIDER_FILTER_AREA;
    d.Flags = STRIDER_PREPROCESS_REVERSE_CHANNELS;
    d.ScaleCount = 1;
    d.Scale = &scale;
    d.BiasCount = 1;
    d.Bias = &bias;
    op = create(STRIDER_OPERATOR_PREPROCESS, &d);
    CHECK(strider_operator_execute(op, pixels, sizeof pixels, planes, 3 * 6 * 8 * sizeof(float)) == STRIDER_OK);
    for (c = 0; c < 3; c++)
        for (i = 0; i < 6 * 8; i++) CHECK(planes[c * 48 + i] == (float)(30 - 10 * c) * scale);
    strider_operator_destroy(op);
    /* YOLO's letterbox: 12 x 16 on 16 x 16, two rows of 114 above and below. */
    tensor_init(&out, STRIDER_TENSOR_DATA_TYPE_FLOAT32, 4, square, NULL);
    d.Resize = STRIDER_RESIZE_LETTERBOX;
    d.ResizeHeight = 16;
    d.ResizeWidth = 16;
    d.PadValue = 114.0f;
    d.Filter = STRIDER_FILTER_BILINEAR;
    d.Flags = STRIDER_PREPROCESS_REVERSE_CHANNELS | STRIDER_PREPROCESS_SAMPLED;
    op = create(STRIDER_OPERATOR_PREPROCESS, &d);
    CHECK(strider_operator_execute(op, pixels, sizeof pixels, planes, sizeof planes) == STRIDER_OK);
    for (c = 0; c < 3; c++)
        for (i = 0; i < 16 * 16; i++) {
            int row = i / 16;
            float want = (row < 2 || row >= 14) ? 114.0f * scale : (float)(30 - 10 * c) * scale;
            CHECK(planes[c * 256 + i] == want);
        }
    strider_operator_destroy(op);
    /* Errors: an unknown flag, a crop with a letterbox, a bad filter. */
    {
        StriderOperatorDesc od;
        StriderOperator* none = NULL;
        od.Type = STRIDER_OPERATOR_PREPROCESS;
        od.Desc = &d;
        d.Flags = 64;
        CHECK_ERROR(strider_operator_create(&od, &none), STRIDER_INVALID_ARGUMENT, "Flags");
        d.Flags = 0;
        d.CropHeight = d.CropWidth = 8;
        CHECK_ERROR(strider_operator_create(&od, &none), STRIDER_INVALID_ARGUMENT, "cannot be combined");
        d.CropHeight = d.CropWidth = 0;
        d.Filter = 9;
        CHECK_ERROR(strider_operator_create(&od, &none), STRIDER_INVALID_ARGUMENT, "Filter");
        CHECK(none == NULL);
    }
}

int main(void) {
    CHECK(strcmp(strider_version(), "") != 0);
    CHECK(strcmp(strider_last_error_message(), "") == 0);
    spec_examples();
    slice();
    identity();
    cast();
    preprocess();
    calc_buffer_tensor_size();
    errors();
    options();
    concurrency();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("strider %s C tests passed\n", strider_version());
    return 0;
}
