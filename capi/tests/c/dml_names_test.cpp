// C++ code written against DirectML's names, compiled against strider_dml.h: the DML_* types are Strider's types,
// their layouts are DirectML's, and a DML_OPERATOR_DESC* goes to strider_operator_create unchanged. Built and run by
// capi/tests/c.rs against the shared and the static library.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "strider_dml.h"

static_assert(std::is_same<DML_OPERATOR_DESC, StriderOperatorDesc>::value, "DML_OPERATOR_DESC is a typedef");
static_assert(std::is_same<DML_BUFFER_TENSOR_DESC, StriderBufferTensorDesc>::value, "typedef");
static_assert(std::is_same<DML_SLICE1_OPERATOR_DESC, StriderSlice1OperatorDesc>::value, "typedef");
static_assert(std::is_standard_layout<DML_BUFFER_TENSOR_DESC>::value, "C layout");
static_assert(sizeof(DML_BUFFER_TENSOR_DESC) == 48, "DirectML's size on 64-bit targets");
static_assert(offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32, "DirectML's offset");
static_assert(offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40, "DirectML's offset");
static_assert(sizeof(DML_SLICE1_OPERATOR_DESC) == 48, "DirectML's size");
static_assert(offsetof(DML_SLICE1_OPERATOR_DESC, InputWindowStrides) == 40, "DirectML's offset");
static_assert(sizeof(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC) == 24, "DirectML's size");
static_assert(sizeof(DML_CAST_OPERATOR_DESC) == 16 && sizeof(DML_SCALE_BIAS) == 8, "DirectML's sizes");
static_assert(DML_OPERATOR_SLICE1 == 111 && DML_OPERATOR_CAST == 61 && DML_OPERATOR_SLICE == 60, "DirectML's values");
static_assert(DML_TENSOR_DATA_TYPE_INT64 == 11 && DML_TENSOR_DATA_TYPE_UINT8 == 5, "DirectML's values");

static int failures = 0;
#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            std::fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond,                \
                         strider_last_error_message());                                                      \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

// The way DirectML samples fill a buffer tensor description.
static DML_BUFFER_TENSOR_DESC BufferDesc(DML_TENSOR_DATA_TYPE type, const std::vector<UINT>& sizes,
                                         const UINT* strides = nullptr) {
    DML_BUFFER_TENSOR_DESC desc = {};
    desc.DataType = type;
    desc.Flags = DML_TENSOR_FLAG_NONE;
    desc.DimensionCount = static_cast<UINT>(sizes.size());
    desc.Sizes = sizes.data();
    desc.Strides = strides;
    desc.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(type, desc.DimensionCount, sizes.data(), strides);
    desc.GuaranteedBaseOffsetAlignment = 0;
    return desc;
}

int main() {
    // The spec's example 2: a negative window stride.
    std::vector<UINT> inSizes = {1, 1, 4, 4}, outSizes = {1, 1, 2, 2};
    DML_BUFFER_TENSOR_DESC inBuffer = BufferDesc(DML_TENSOR_DATA_TYPE_FLOAT32, inSizes);
    DML_BUFFER_TENSOR_DESC outBuffer = BufferDesc(DML_TENSOR_DATA_TYPE_FLOAT32, outSizes);
    DML_TENSOR_DESC inTensor = {DML_TENSOR_TYPE_BUFFER, &inBuffer};
    DML_TENSOR_DESC outTensor = {DML_TENSOR_TYPE_BUFFER, &outBuffer};
    UINT offsets[4] = {0, 0, 0, 1}, windowSizes[4] = {1, 1, 4, 3};
    INT windowStrides[4] = {1, 1, -2, 2};
    DML_SLICE1_OPERATOR_DESC sliceDesc = {&inTensor, &outTensor, 4, offsets, windowSizes, windowStrides};
    DML_OPERATOR_DESC opDesc = {DML_OPERATOR_SLICE1, &sliceDesc};

    StriderOperator* op = nullptr;
    CHECK(strider_operator_create(&opDesc, &op) == STRIDER_OK);
    std::vector<float> input(16);
    for (int i = 0; i < 16; i++) input[i] = float(i + 1);
    // Several threads share the operator.
    std::vector<std::thread> threads;
    std::vector<std::vector<float>> outputs(4, std::vector<float>(4));
    std::vector<int> statuses(4, -1);
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&, t] {
            statuses[t] = strider_operator_execute(op, input.data(), input.size() * sizeof(float), outputs[t].data(),
                                                   outputs[t].size() * sizeof(float));
        });
    }
    for (auto& thread : threads) thread.join();
    const float expected[4] = {14, 16, 6, 8};
    for (int t = 0; t < 4; t++) {
        CHECK(statuses[t] == STRIDER_OK);
        CHECK(std::memcmp(outputs[t].data(), expected, sizeof expected) == 0);
    }
    strider_operator_destroy(op);

    // DML_CAST u8 -> f32 with an identity-style desc built as aggregate initializers.
    std::vector<UINT> sizes = {5};
    DML_BUFFER_TENSOR_DESC u8Buffer = BufferDesc(DML_TENSOR_DATA_TYPE_UINT8, sizes);
    DML_BUFFER_TENSOR_DESC f32Buffer = BufferDesc(DML_TENSOR_DATA_TYPE_FLOAT32, sizes);
    DML_TENSOR_DESC u8Tensor = {DML_TENSOR_TYPE_BUFFER, &u8Buffer}, f32Tensor = {DML_TENSOR_TYPE_BUFFER, &f32Buffer};
    DML_CAST_OPERATOR_DESC castDesc = {&u8Tensor, &f32Tensor};
    DML_OPERATOR_DESC castOp = {DML_OPERATOR_CAST, &castDesc};
    CHECK(strider_operator_create(&castOp, &op) == STRIDER_OK);
    uint8_t bytes[8] = {0, 1, 127, 128, 255, 0, 0, 0};
    float values[5] = {};
    CHECK(u8Buffer.TotalTensorSizeInBytes == 8);
    CHECK(strider_operator_execute(op, bytes, sizeof bytes, values, sizeof values) == STRIDER_OK);
    CHECK(values[0] == 0.0f && values[2] == 127.0f && values[3] == 128.0f && values[4] == 255.0f);
    // A C++ caller sees the same errors.
    CHECK(strider_operator_execute(op, bytes, 4, values, sizeof values) == STRIDER_BUFFER_TOO_SMALL);
    CHECK(std::strstr(strider_last_error_message(), "input buffer holds 4 bytes") != nullptr);
    strider_operator_destroy(op);

    if (failures) {
        std::fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    std::printf("strider %s C++ tests passed\n", strider_version());
    return 0;
}
