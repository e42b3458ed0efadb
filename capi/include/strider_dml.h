/*
 * strider_dml.h: DirectML's names for Strider's C interface, so that C and C++ code written against DirectML's
 * descriptor types compiles unchanged and runs on the CPU.
 *
 *   #include "strider_dml.h"
 *   DML_BUFFER_TENSOR_DESC buffer = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, NULL,
 *                                     DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL), 0 };
 *   DML_TENSOR_DESC tensor = { DML_TENSOR_TYPE_BUFFER, &buffer };
 *   DML_SLICE1_OPERATOR_DESC slice = { &tensor, &out_tensor, 4, offsets, window_sizes, window_strides };
 *   DML_OPERATOR_DESC desc = { DML_OPERATOR_SLICE1, &slice };
 *   StriderOperator* op;
 *   strider_operator_create(&desc, &op);          // a DML_OPERATOR_DESC* is a StriderOperatorDesc*
 *
 * The DML_* types are typedefs of the Strider types (the same types, not look-alikes). Enum types are uint32_t,
 * which DirectML's enums convert to and from in C and C++; the constants are macros with DirectML's values.
 *
 * When DirectML.h was included first (DIRECTML_H is defined), DirectML's own definitions stand and this header
 * adds only STRIDER_OPERATOR_DESC(p), which turns a `const DML_OPERATOR_DESC*` into the layout-identical
 * `const StriderOperatorDesc*`. Define STRIDER_DML_NO_BASIC_TYPES if your platform headers already define UINT,
 * INT, UINT64 and FLOAT.
 */
#ifndef STRIDER_DML_H
#define STRIDER_DML_H

#include "strider.h"

#define STRIDER_OPERATOR_DESC(p) ((const StriderOperatorDesc *)(const void *)(p))

#ifndef DIRECTML_H

#ifndef STRIDER_DML_NO_BASIC_TYPES
typedef uint32_t UINT;
typedef int32_t INT;
typedef uint64_t UINT64;
typedef float FLOAT;
#endif

typedef uint32_t DML_TENSOR_DATA_TYPE;
typedef uint32_t DML_TENSOR_TYPE;
typedef uint32_t DML_TENSOR_FLAGS;
typedef uint32_t DML_OPERATOR_TYPE;
typedef uint32_t DML_PADDING_MODE;
typedef uint32_t DML_DEPTH_SPACE_ORDER;

#define DML_TENSOR_DATA_TYPE_UNKNOWN STRIDER_TENSOR_DATA_TYPE_UNKNOWN
#define DML_TENSOR_DATA_TYPE_FLOAT32 STRIDER_TENSOR_DATA_TYPE_FLOAT32
#define DML_TENSOR_DATA_TYPE_FLOAT16 STRIDER_TENSOR_DATA_TYPE_FLOAT16
#define DML_TENSOR_DATA_TYPE_UINT32 STRIDER_TENSOR_DATA_TYPE_UINT32
#define DML_TENSOR_DATA_TYPE_UINT16 STRIDER_TENSOR_DATA_TYPE_UINT16
#define DML_TENSOR_DATA_TYPE_UINT8 STRIDER_TENSOR_DATA_TYPE_UINT8
#define DML_TENSOR_DATA_TYPE_INT32 STRIDER_TENSOR_DATA_TYPE_INT32
#define DML_TENSOR_DATA_TYPE_INT16 STRIDER_TENSOR_DATA_TYPE_INT16
#define DML_TENSOR_DATA_TYPE_INT8 STRIDER_TENSOR_DATA_TYPE_INT8
#define DML_TENSOR_DATA_TYPE_FLOAT64 STRIDER_TENSOR_DATA_TYPE_FLOAT64
#define DML_TENSOR_DATA_TYPE_UINT64 STRIDER_TENSOR_DATA_TYPE_UINT64
#define DML_TENSOR_DATA_TYPE_INT64 STRIDER_TENSOR_DATA_TYPE_INT64

#define DML_TENSOR_TYPE_INVALID STRIDER_TENSOR_TYPE_INVALID
#define DML_TENSOR_TYPE_BUFFER STRIDER_TENSOR_TYPE_BUFFER

#define DML_TENSOR_FLAG_NONE STRIDER_TENSOR_FLAG_NONE
#define DML_TENSOR_FLAG_OWNED_BY_DML STRIDER_TENSOR_FLAG_OWNED_BY_DML

#define DML_OPERATOR_INVALID STRIDER_OPERATOR_INVALID
#define DML_OPERATOR_ELEMENT_WISE_IDENTITY STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY
#define DML_OPERATOR_SLICE STRIDER_OPERATOR_SLICE
#define DML_OPERATOR_CAST STRIDER_OPERATOR_CAST
#define DML_OPERATOR_SLICE1 STRIDER_OPERATOR_SLICE1
#define DML_OPERATOR_SPLIT STRIDER_OPERATOR_SPLIT
#define DML_OPERATOR_JOIN STRIDER_OPERATOR_JOIN
#define DML_OPERATOR_PADDING STRIDER_OPERATOR_PADDING
#define DML_OPERATOR_SPACE_TO_DEPTH STRIDER_OPERATOR_SPACE_TO_DEPTH
#define DML_OPERATOR_DEPTH_TO_SPACE STRIDER_OPERATOR_DEPTH_TO_SPACE
#define DML_OPERATOR_TILE STRIDER_OPERATOR_TILE
#define DML_OPERATOR_FILL_VALUE_CONSTANT STRIDER_OPERATOR_FILL_VALUE_CONSTANT
#define DML_OPERATOR_FILL_VALUE_SEQUENCE STRIDER_OPERATOR_FILL_VALUE_SEQUENCE
#define DML_OPERATOR_DEPTH_TO_SPACE1 STRIDER_OPERATOR_DEPTH_TO_SPACE1
#define DML_OPERATOR_SPACE_TO_DEPTH1 STRIDER_OPERATOR_SPACE_TO_DEPTH1
#define DML_OPERATOR_PADDING1 STRIDER_OPERATOR_PADDING1

#define DML_PADDING_MODE_CONSTANT STRIDER_PADDING_MODE_CONSTANT
#define DML_PADDING_MODE_EDGE STRIDER_PADDING_MODE_EDGE
#define DML_PADDING_MODE_REFLECTION STRIDER_PADDING_MODE_REFLECTION
#define DML_PADDING_MODE_SYMMETRIC STRIDER_PADDING_MODE_SYMMETRIC
#define DML_PADDING_MODE_WRAP STRIDER_PADDING_MODE_WRAP

#define DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW STRIDER_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
#define DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH STRIDER_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH

#define DML_TENSOR_DIMENSION_COUNT_MAX 5
#define DML_TENSOR_DIMENSION_COUNT_MAX1 8
#define DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT 16

typedef StriderBufferTensorDesc DML_BUFFER_TENSOR_DESC;
typedef StriderTensorDesc DML_TENSOR_DESC;
typedef StriderOperatorDesc DML_OPERATOR_DESC;
typedef StriderScaleBias DML_SCALE_BIAS;
typedef StriderElementWiseIdentityOperatorDesc DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC;
typedef StriderSliceOperatorDesc DML_SLICE_OPERATOR_DESC;
typedef StriderSlice1OperatorDesc DML_SLICE1_OPERATOR_DESC;
typedef StriderCastOperatorDesc DML_CAST_OPERATOR_DESC;
typedef StriderScalarUnion DML_SCALAR_UNION;
typedef StriderSplitOperatorDesc DML_SPLIT_OPERATOR_DESC;
typedef StriderJoinOperatorDesc DML_JOIN_OPERATOR_DESC;
typedef StriderPaddingOperatorDesc DML_PADDING_OPERATOR_DESC;
typedef StriderPadding1OperatorDesc DML_PADDING1_OPERATOR_DESC;
typedef StriderSpaceToDepthOperatorDesc DML_SPACE_TO_DEPTH_OPERATOR_DESC;
typedef StriderDepthToSpaceOperatorDesc DML_DEPTH_TO_SPACE_OPERATOR_DESC;
typedef StriderSpaceToDepth1OperatorDesc DML_SPACE_TO_DEPTH1_OPERATOR_DESC;
typedef StriderDepthToSpace1OperatorDesc DML_DEPTH_TO_SPACE1_OPERATOR_DESC;
typedef StriderTileOperatorDesc DML_TILE_OPERATOR_DESC;
typedef StriderFillValueConstantOperatorDesc DML_FILL_VALUE_CONSTANT_OPERATOR_DESC;
typedef StriderFillValueSequenceOperatorDesc DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC;

/* DirectML's helper: the least TotalTensorSizeInBytes of a tensor (0 for an invalid description). */
static inline UINT64 DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT *sizes,
                                             const UINT *strides) {
    return strider_calc_buffer_tensor_size(dataType, dimensionCount, sizes, strides);
}

#endif /* DIRECTML_H */

#endif /* STRIDER_DML_H */
