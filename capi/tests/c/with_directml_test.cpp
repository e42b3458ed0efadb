// A program that includes DirectML's own header first: strider_dml.h then leaves DirectML's definitions alone and
// STRIDER_OPERATOR_DESC(p) hands the layout-identical description to Strider. DirectML.h needs Windows headers, so
// this test declares the part of it the program uses, as DirectML.h spells it (enums, not integers).
#include <cstdio>
#include <cstring>

#define DIRECTML_H
typedef unsigned int UINT;
typedef int INT;
typedef unsigned long long UINT64;
enum DML_TENSOR_DATA_TYPE { DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_FLOAT32 };
enum DML_TENSOR_TYPE { DML_TENSOR_TYPE_INVALID, DML_TENSOR_TYPE_BUFFER };
enum DML_TENSOR_FLAGS { DML_TENSOR_FLAG_NONE = 0x0, DML_TENSOR_FLAG_OWNED_BY_DML = 0x1 };
enum DML_OPERATOR_TYPE { DML_OPERATOR_INVALID, DML_OPERATOR_SLICE1 = 111 };
struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT* Sizes;
    const UINT* Strides;
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
};
struct DML_TENSOR_DESC { DML_TENSOR_TYPE Type; const void* Desc; };
struct DML_OPERATOR_DESC { DML_OPERATOR_TYPE Type; const void* Desc; };
struct DML_SLICE1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* InputWindowOffsets;
    const UINT* InputWindowSizes;
    const INT* InputWindowStrides;
};

#include "strider_dml.h"

static_assert(sizeof(DML_BUFFER_TENSOR_DESC) == sizeof(StriderBufferTensorDesc), "same layout");
static_assert(sizeof(DML_SLICE1_OPERATOR_DESC) == sizeof(StriderSlice1OperatorDesc), "same layout");
static_assert(sizeof(DML_OPERATOR_DESC) == sizeof(StriderOperatorDesc), "same layout");

int main() {
    UINT inSizes[4] = {1, 1, 4, 4}, outSizes[4] = {1, 1, 2, 2};
    DML_BUFFER_TENSOR_DESC inBuffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, inSizes, nullptr, 64, 0};
    DML_BUFFER_TENSOR_DESC outBuffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, outSizes, nullptr, 16, 0};
    DML_TENSOR_DESC inTensor = {DML_TENSOR_TYPE_BUFFER, &inBuffer}, outTensor = {DML_TENSOR_TYPE_BUFFER, &outBuffer};
    UINT offsets[4] = {0, 0, 0, 1}, windowSizes[4] = {1, 1, 4, 3};
    INT windowStrides[4] = {1, 1, -2, 2};
    DML_SLICE1_OPERATOR_DESC slice = {&inTensor, &outTensor, 4, offsets, windowSizes, windowStrides};
    DML_OPERATOR_DESC opDesc = {DML_OPERATOR_SLICE1, &slice};

    StriderOperator* op = nullptr;
    if (strider_operator_create(STRIDER_OPERATOR_DESC(&opDesc), &op) != STRIDER_OK) {
        std::fprintf(stderr, "create: %s\n", strider_last_error_message());
        return 1;
    }
    float input[16], output[4] = {};
    for (int i = 0; i < 16; i++) input[i] = float(i + 1);
    const float expected[4] = {14, 16, 6, 8};
    StriderStatus status = strider_operator_execute(op, input, sizeof input, output, sizeof output);
    strider_operator_destroy(op);
    if (status != STRIDER_OK || std::memcmp(output, expected, sizeof expected) != 0) {
        std::fprintf(stderr, "execute: %d %s\n", int(status), strider_last_error_message());
        return 1;
    }
    std::printf("strider %s with DirectML's own types: tests passed\n", strider_version());
    return 0;
}
