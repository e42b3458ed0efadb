// The data-movement family from C++ written against DirectML's names (strider_dml.h): DML_PADDING / PADDING1,
// DML_JOIN, DML_SPLIT, DML_TILE, DML_DEPTH_TO_SPACE(1) / SPACE_TO_DEPTH(1), DML_FILL_VALUE_CONSTANT / SEQUENCE,
// DML_GATHER, GATHER_ELEMENTS, GATHER_ND(1), SCATTER(_ELEMENTS), SCATTER_ND and ONE_HOT,
// filled as DirectML programs fill them, run through strider_operator_execute_bindings and checked against naive
// loops; every error class with its message. Built and run by capi/tests/c.rs.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "strider_dml.h"

// DirectML's layouts on 64-bit targets (from DirectML.h: enums and UINT are 4 bytes, pointers 8, the union 8).
static_assert(sizeof(DML_SCALAR_UNION) == 8, "DML_SCALAR_UNION");
static_assert(sizeof(DML_JOIN_OPERATOR_DESC) == 32 && offsetof(DML_JOIN_OPERATOR_DESC, InputTensors) == 8 &&
                  offsetof(DML_JOIN_OPERATOR_DESC, OutputTensor) == 16 && offsetof(DML_JOIN_OPERATOR_DESC, Axis) == 24,
              "DML_JOIN_OPERATOR_DESC");
static_assert(sizeof(DML_SPLIT_OPERATOR_DESC) == 32 && offsetof(DML_SPLIT_OPERATOR_DESC, OutputCount) == 8 &&
                  offsetof(DML_SPLIT_OPERATOR_DESC, OutputTensors) == 16 && offsetof(DML_SPLIT_OPERATOR_DESC, Axis) == 24,
              "DML_SPLIT_OPERATOR_DESC");
static_assert(sizeof(DML_PADDING_OPERATOR_DESC) == 48 && offsetof(DML_PADDING_OPERATOR_DESC, PaddingMode) == 16 &&
                  offsetof(DML_PADDING_OPERATOR_DESC, PaddingValue) == 20 &&
                  offsetof(DML_PADDING_OPERATOR_DESC, DimensionCount) == 24 &&
                  offsetof(DML_PADDING_OPERATOR_DESC, StartPadding) == 32 &&
                  offsetof(DML_PADDING_OPERATOR_DESC, EndPadding) == 40,
              "DML_PADDING_OPERATOR_DESC");
static_assert(sizeof(DML_PADDING1_OPERATOR_DESC) == 56 &&
                  offsetof(DML_PADDING1_OPERATOR_DESC, PaddingValueDataType) == 20 &&
                  offsetof(DML_PADDING1_OPERATOR_DESC, PaddingValue) == 24 &&
                  offsetof(DML_PADDING1_OPERATOR_DESC, DimensionCount) == 32 &&
                  offsetof(DML_PADDING1_OPERATOR_DESC, StartPadding) == 40 &&
                  offsetof(DML_PADDING1_OPERATOR_DESC, EndPadding) == 48,
              "DML_PADDING1_OPERATOR_DESC");
static_assert(sizeof(DML_TILE_OPERATOR_DESC) == 32 && offsetof(DML_TILE_OPERATOR_DESC, RepeatsCount) == 16 &&
                  offsetof(DML_TILE_OPERATOR_DESC, Repeats) == 24,
              "DML_TILE_OPERATOR_DESC");
static_assert(sizeof(DML_DEPTH_TO_SPACE_OPERATOR_DESC) == 24 && offsetof(DML_DEPTH_TO_SPACE_OPERATOR_DESC, BlockSize) == 16,
              "DML_DEPTH_TO_SPACE_OPERATOR_DESC");
static_assert(sizeof(DML_SPACE_TO_DEPTH1_OPERATOR_DESC) == 24 && offsetof(DML_SPACE_TO_DEPTH1_OPERATOR_DESC, Order) == 20,
              "DML_SPACE_TO_DEPTH1_OPERATOR_DESC");
static_assert(sizeof(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC) == 24 &&
                  offsetof(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, ValueDataType) == 8 &&
                  offsetof(DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, Value) == 16,
              "DML_FILL_VALUE_CONSTANT_OPERATOR_DESC");
static_assert(sizeof(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC) == 32 &&
                  offsetof(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueStart) == 16 &&
                  offsetof(DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, ValueDelta) == 24,
              "DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC");
static_assert(DML_OPERATOR_SPLIT == 62 && DML_OPERATOR_JOIN == 63 && DML_OPERATOR_PADDING == 64 &&
                  DML_OPERATOR_SPACE_TO_DEPTH == 68 && DML_OPERATOR_DEPTH_TO_SPACE == 69 && DML_OPERATOR_TILE == 70 &&
                  DML_OPERATOR_FILL_VALUE_CONSTANT == 103 && DML_OPERATOR_FILL_VALUE_SEQUENCE == 104 &&
                  DML_OPERATOR_DEPTH_TO_SPACE1 == 113 && DML_OPERATOR_SPACE_TO_DEPTH1 == 114 &&
                  DML_OPERATOR_PADDING1 == 155,
              "DirectML's operator values");
static_assert(sizeof(DML_GATHER_OPERATOR_DESC) == 32 && offsetof(DML_GATHER_OPERATOR_DESC, Axis) == 24 &&
                  offsetof(DML_GATHER_OPERATOR_DESC, IndexDimensions) == 28,
              "DML_GATHER_OPERATOR_DESC");
static_assert(sizeof(DML_GATHER_ELEMENTS_OPERATOR_DESC) == 32 && offsetof(DML_GATHER_ELEMENTS_OPERATOR_DESC, Axis) == 24,
              "DML_GATHER_ELEMENTS_OPERATOR_DESC");
static_assert(sizeof(DML_GATHER_ND_OPERATOR_DESC) == 32 &&
                  offsetof(DML_GATHER_ND_OPERATOR_DESC, IndicesDimensionCount) == 28,
              "DML_GATHER_ND_OPERATOR_DESC");
static_assert(sizeof(DML_GATHER_ND1_OPERATOR_DESC) == 40 &&
                  offsetof(DML_GATHER_ND1_OPERATOR_DESC, BatchDimensionCount) == 32,
              "DML_GATHER_ND1_OPERATOR_DESC");
static_assert(sizeof(DML_SCATTER_OPERATOR_DESC) == 40 && offsetof(DML_SCATTER_OPERATOR_DESC, Axis) == 32,
              "DML_SCATTER_OPERATOR_DESC");
static_assert(sizeof(DML_SCATTER_ND_OPERATOR_DESC) == 40 &&
                  offsetof(DML_SCATTER_ND_OPERATOR_DESC, IndicesDimensionCount) == 36,
              "DML_SCATTER_ND_OPERATOR_DESC");
static_assert(sizeof(DML_ONE_HOT_OPERATOR_DESC) == 32 && offsetof(DML_ONE_HOT_OPERATOR_DESC, Axis) == 24,
              "DML_ONE_HOT_OPERATOR_DESC");
static_assert(DML_OPERATOR_GATHER == 67 && DML_OPERATOR_SCATTER_ELEMENTS == 94 && DML_OPERATOR_SCATTER == 94 &&
                  DML_OPERATOR_ONE_HOT == 95 && DML_OPERATOR_GATHER_ELEMENTS == 107 && DML_OPERATOR_GATHER_ND == 108 &&
                  DML_OPERATOR_SCATTER_ND == 109 && DML_OPERATOR_GATHER_ND1 == 140,
              "DirectML's index operator values");
static_assert(DML_PADDING_MODE_CONSTANT == 0 && DML_PADDING_MODE_EDGE == 1 && DML_PADDING_MODE_REFLECTION == 2 &&
                  DML_PADDING_MODE_SYMMETRIC == 3 && DML_PADDING_MODE_WRAP == 4,
              "DML_PADDING_MODE");
static_assert(DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW == 0 && DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH == 1,
              "DML_DEPTH_SPACE_ORDER");

static int failures = 0;
#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            std::fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond,                \
                         strider_last_error_message());                                                      \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)
#define CHECK_ERROR(call, status, needle)                                                                    \
    do {                                                                                                     \
        StriderStatus got_ = (call);                                                                         \
        const char* msg_ = strider_last_error_message();                                                     \
        if (got_ != (status) || std::strstr(msg_, (needle)) == nullptr) {                                    \
            std::fprintf(stderr, "%s:%d: %s returned %d with \"%s\"; expected %d mentioning \"%s\"\n",        \
                         __FILE__, __LINE__, #call, (int)got_, msg_, (int)(status), (needle));               \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

// A tensor: its sizes and strides (owned, so the description's pointers stay valid) and DirectML's two structs.
struct Tensor {
    std::vector<UINT> sizes, strides;
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
    Tensor(DML_TENSOR_DATA_TYPE type, std::vector<UINT> s, std::vector<UINT> st = {}) : sizes(s), strides(st) {
        buffer = {};
        buffer.DataType = type;
        buffer.DimensionCount = static_cast<UINT>(sizes.size());
        buffer.Sizes = sizes.data();
        buffer.Strides = strides.empty() ? nullptr : strides.data();
        buffer.TotalTensorSizeInBytes =
            DMLCalcBufferTensorSize(type, buffer.DimensionCount, sizes.data(), buffer.Strides);
        desc = {DML_TENSOR_TYPE_BUFFER, &buffer};
    }
    Tensor(const Tensor&) = delete;
    // Element offset of a coordinate.
    size_t at(std::vector<UINT> c) const {
        size_t off = 0, acc = 1;
        for (size_t d = sizes.size(); d-- > 0;) {
            off += c[d] * (strides.empty() ? acc : strides[d]);
            acc *= sizes[d];
        }
        return off;
    }
    size_t bytes() const { return static_cast<size_t>(buffer.TotalTensorSizeInBytes); }
};

static StriderOperator* create(DML_OPERATOR_TYPE type, const void* desc) {
    DML_OPERATOR_DESC op = {type, desc};
    StriderOperator* out = nullptr;
    if (strider_operator_create(&op, &out) != STRIDER_OK) {
        std::fprintf(stderr, "create %u failed: %s\n", type, strider_last_error_message());
        failures++;
    }
    return out;
}

static StriderBufferBinding bind(void* data, size_t bytes) { return {data, static_cast<uint64_t>(bytes)}; }

static void join_and_split() {
    // Three f32 inputs of 2×k×3 joined along axis 1, the middle one padded.
    Tensor a(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 1, 3}), b(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2, 3}, {8, 4, 1}),
        c(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 3}), out(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 6, 3});
    DML_TENSOR_DESC inputs[3] = {a.desc, b.desc, c.desc};
    DML_JOIN_OPERATOR_DESC join = {3, inputs, &out.desc, 1};
    StriderOperator* op = create(DML_OPERATOR_JOIN, &join);
    std::vector<float> xa(a.bytes() / 4), xb(b.bytes() / 4), xc(c.bytes() / 4), y(out.bytes() / 4, -1.0f);
    for (size_t i = 0; i < xa.size(); i++) xa[i] = float(i);
    for (size_t i = 0; i < xb.size(); i++) xb[i] = float(100 + i);
    for (size_t i = 0; i < xc.size(); i++) xc[i] = float(200 + i);
    StriderBufferBinding ins[3] = {bind(xa.data(), a.bytes()), bind(xb.data(), b.bytes()), bind(xc.data(), c.bytes())};
    StriderBufferBinding outs[1] = {bind(y.data(), out.bytes())};
    CHECK(strider_operator_execute_bindings(op, ins, 3, outs, 1, nullptr) == STRIDER_OK);
    for (UINT n = 0; n < 2; n++)
        for (UINT k = 0; k < 6; k++)
            for (UINT w = 0; w < 3; w++) {
                float want = k < 1 ? xa[a.at({n, k, w})] : k < 3 ? xb[b.at({n, k - 1, w})] : xc[c.at({n, k - 3, w})];
                CHECK(y[out.at({n, k, w})] == want);
            }
    // The counts and the one-buffer entry point.
    CHECK_ERROR(strider_operator_execute_bindings(op, ins, 2, outs, 1, nullptr), STRIDER_INVALID_ARGUMENT,
                "input_count is 2; DML_OPERATOR_JOIN takes 3");
    CHECK_ERROR(strider_operator_execute(op, xa.data(), a.bytes(), y.data(), out.bytes()), STRIDER_INVALID_ARGUMENT,
                "use strider_operator_execute_bindings");
    CHECK_ERROR(strider_operator_execute_bindings(op, nullptr, 3, outs, 1, nullptr), STRIDER_INVALID_ARGUMENT,
                "inputs is NULL");
    // Inputs may alias each other; an output may not overlap an input.
    StriderBufferBinding same[3] = {ins[0], bind(xb.data(), b.bytes()), bind(xb.data(), c.bytes())};
    std::vector<float> big(c.bytes() / 4 + 64);
    same[2] = bind(big.data(), c.bytes());
    same[1] = bind(big.data(), b.bytes());
    CHECK(strider_operator_execute_bindings(op, same, 3, outs, 1, nullptr) == STRIDER_OK);
    StriderBufferBinding into[1] = {bind(big.data() + 2, out.bytes())};
    CHECK_ERROR(strider_operator_execute_bindings(op, same, 3, into, 1, nullptr), STRIDER_INVALID_ARGUMENT,
                "overlap");
    ins[1].SizeInBytes = b.bytes() - 4;
    CHECK_ERROR(strider_operator_execute_bindings(op, ins, 3, outs, 1, nullptr), STRIDER_BUFFER_TOO_SMALL,
                "input 1 buffer");
    strider_operator_destroy(op);

    // Split the joined tensor back into the three shapes; overlapping outputs are refused before any write.
    DML_TENSOR_DESC outputs[3] = {a.desc, b.desc, c.desc};
    DML_SPLIT_OPERATOR_DESC split = {&out.desc, 3, outputs, 1};
    op = create(DML_OPERATOR_SPLIT, &split);
    std::vector<float> ya(xa.size(), 0.0f), yb(xb.size(), -7.0f), yc(xc.size(), 0.0f);
    StriderBufferBinding from[1] = {bind(y.data(), out.bytes())};
    StriderBufferBinding parts[3] = {bind(ya.data(), a.bytes()), bind(yb.data(), b.bytes()), bind(yc.data(), c.bytes())};
    CHECK(strider_operator_execute_bindings(op, from, 1, parts, 3, nullptr) == STRIDER_OK);
    for (UINT n = 0; n < 2; n++)
        for (UINT w = 0; w < 3; w++) {
            CHECK(ya[a.at({n, 0, w})] == y[out.at({n, 0, w})]);
            for (UINT k = 0; k < 2; k++) CHECK(yb[b.at({n, k, w})] == y[out.at({n, 1 + k, w})]);
            for (UINT k = 0; k < 3; k++) CHECK(yc[c.at({n, k, w})] == y[out.at({n, 3 + k, w})]);
        }
    CHECK(yb[3] == -7.0f); // padding of the middle output untouched
    std::fill(ya.begin(), ya.end(), 0.0f);
    StriderBufferBinding overlapping[3] = {bind(ya.data(), a.bytes()), bind(ya.data(), b.bytes()), parts[2]};
    CHECK_ERROR(strider_operator_execute_bindings(op, from, 1, overlapping, 3, nullptr), STRIDER_INVALID_ARGUMENT,
                "output 0 buffer");
    CHECK(ya[0] == 0.0f);
    strider_operator_destroy(op);

    // Validation names the field.
    DML_JOIN_OPERATOR_DESC bad = {3, inputs, &out.desc, 3};
    DML_OPERATOR_DESC badOp = {DML_OPERATOR_JOIN, &bad};
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "axis 3 is not a dimension");
    bad.Axis = 1;
    bad.InputCount = 2;
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "add up to 3");
    bad.InputCount = 0;
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "InputCount is 0");
}

// NumPy's pad index, bouncing off the edges.
static long pad_index(UINT mode, long t, long n) {
    while (t < 0 || t >= n) {
        if (mode == DML_PADDING_MODE_EDGE) t = t < 0 ? 0 : n - 1;
        else if (mode == DML_PADDING_MODE_REFLECTION) t = t < 0 ? -t : 2 * (n - 1) - t;
        else if (mode == DML_PADDING_MODE_SYMMETRIC) t = t < 0 ? -t - 1 : 2 * n - 1 - t;
        else t = t < 0 ? t + n : t - n;
    }
    return t;
}

static void padding() {
    Tensor in(DML_TENSOR_DATA_TYPE_INT32, {3, 4}), out(DML_TENSOR_DATA_TYPE_INT32, {6, 9});
    UINT start[2] = {1, 2}, end[2] = {2, 3};
    std::vector<int32_t> x(12), y(54);
    for (int i = 0; i < 12; i++) x[i] = i * 10;
    for (UINT mode = DML_PADDING_MODE_EDGE; mode <= DML_PADDING_MODE_WRAP; mode++) {
        DML_PADDING1_OPERATOR_DESC pad = {&in.desc, &out.desc, mode, DML_TENSOR_DATA_TYPE_INT32, {}, 2, start, end};
        StriderOperator* op = create(DML_OPERATOR_PADDING1, &pad);
        CHECK(strider_operator_execute(op, x.data(), 48, y.data(), 216) == STRIDER_OK);
        for (UINT r = 0; r < 6; r++)
            for (UINT q = 0; q < 9; q++) {
                long i = pad_index(mode, long(r) - 1, 3), j = pad_index(mode, long(q) - 2, 4);
                CHECK(y[r * 9 + q] == x[i * 4 + j]);
            }
        strider_operator_destroy(op);
    }
    // DML_PADDING's FLOAT value converts to the output's type as DML_CAST converts it: 114.7 → 114 for u8.
    Tensor pin(DML_TENSOR_DATA_TYPE_UINT8, {2, 2}), pout(DML_TENSOR_DATA_TYPE_UINT8, {4, 2});
    UINT s2[2] = {1, 0}, e2[2] = {1, 0};
    DML_PADDING_OPERATOR_DESC v0 = {&pin.desc, &pout.desc, DML_PADDING_MODE_CONSTANT, 114.7f, 2, s2, e2};
    StriderOperator* op = create(DML_OPERATOR_PADDING, &v0);
    uint8_t px[4] = {1, 2, 3, 4}, py[8] = {};
    CHECK(strider_operator_execute(op, px, 4, py, 8) == STRIDER_OK);
    const uint8_t want[8] = {114, 114, 1, 2, 3, 4, 114, 114};
    CHECK(std::memcmp(py, want, 8) == 0);
    strider_operator_destroy(op);
    // PADDING1's value type must be the output's, in every mode; modes are DirectML's values.
    DML_PADDING1_OPERATOR_DESC bad = {&in.desc, &out.desc, DML_PADDING_MODE_EDGE, DML_TENSOR_DATA_TYPE_FLOAT32, {}, 2,
                                      start, end};
    DML_OPERATOR_DESC badOp = {DML_OPERATOR_PADDING1, &bad};
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "PaddingValueDataType is FLOAT32");
    bad.PaddingValueDataType = DML_TENSOR_DATA_TYPE_INT32;
    bad.PaddingMode = 9;
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "PaddingMode is 9");
    bad.PaddingMode = DML_PADDING_MODE_WRAP;
    end[1] = 4;
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "size 9 in dimension 1 but 10");
}

static void tile_and_depth() {
    Tensor in(DML_TENSOR_DATA_TYPE_UINT8, {2, 3}), out(DML_TENSOR_DATA_TYPE_UINT8, {4, 6});
    UINT repeats[2] = {2, 2};
    DML_TILE_OPERATOR_DESC tile = {&in.desc, &out.desc, 2, repeats};
    StriderOperator* op = create(DML_OPERATOR_TILE, &tile);
    uint8_t x[8] = {1, 2, 3, 4, 5, 6}, y[24] = {};
    CHECK(strider_operator_execute(op, x, 8, y, 24) == STRIDER_OK);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++) CHECK(y[r * 6 + c] == x[(r % 2) * 3 + c % 3]);
    strider_operator_destroy(op);

    // DEPTH_TO_SPACE1, column-row-depth (pixel_shuffle), then SPACE_TO_DEPTH (v0, depth-column-row) of the result.
    const UINT b = 2, C = 2, H = 2, W = 3;
    Tensor depth(DML_TENSOR_DATA_TYPE_FLOAT32, {1, C * b * b, H, W}), space(DML_TENSOR_DATA_TYPE_FLOAT32, {1, C, H * b, W * b});
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC d2s = {&depth.desc, &space.desc, b, DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH};
    op = create(DML_OPERATOR_DEPTH_TO_SPACE1, &d2s);
    std::vector<float> dx(C * b * b * H * W), sy(dx.size()), back(dx.size());
    for (size_t i = 0; i < dx.size(); i++) dx[i] = float(i);
    CHECK(strider_operator_execute(op, dx.data(), dx.size() * 4, sy.data(), sy.size() * 4) == STRIDER_OK);
    for (UINT c = 0; c < C; c++)
        for (UINT y0 = 0; y0 < H * b; y0++)
            for (UINT x0 = 0; x0 < W * b; x0++) {
                UINT channel = c * b * b + (y0 % b) * b + x0 % b;
                CHECK(sy[space.at({0, c, y0, x0})] == dx[depth.at({0, channel, y0 / b, x0 / b})]);
            }
    strider_operator_destroy(op);
    DML_SPACE_TO_DEPTH_OPERATOR_DESC s2d = {&space.desc, &depth.desc, b};
    op = create(DML_OPERATOR_SPACE_TO_DEPTH, &s2d);
    CHECK(strider_operator_execute(op, sy.data(), sy.size() * 4, back.data(), back.size() * 4) == STRIDER_OK);
    for (UINT k = 0; k < C * b * b; k++)
        for (UINT y0 = 0; y0 < H; y0++)
            for (UINT x0 = 0; x0 < W; x0++) {
                UINT q = k / C, c = k % C; // depth-column-row: channel (i·b + j)·C + c
                CHECK(back[depth.at({0, k, y0, x0})] == sy[space.at({0, c, y0 * b + q / b, x0 * b + q % b})]);
            }
    strider_operator_destroy(op);
    DML_DEPTH_TO_SPACE1_OPERATOR_DESC bad = {&depth.desc, &space.desc, 3, DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW};
    DML_OPERATOR_DESC badOp = {DML_OPERATOR_DEPTH_TO_SPACE1, &bad};
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "not a multiple of 9");
    bad.BlockSize = 2;
    bad.Order = 2;
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT, "Order is 2");
}

static void fills() {
    Tensor h(DML_TENSOR_DATA_TYPE_FLOAT16, {3, 5}, {8, 1});
    DML_FILL_VALUE_CONSTANT_OPERATOR_DESC constant = {&h.desc, DML_TENSOR_DATA_TYPE_FLOAT16, {}};
    constant.Value.Bytes[0] = 0x00; // binary16 1.5 = 0x3E00, in Bytes[0..2] as ONNX Runtime passes it
    constant.Value.Bytes[1] = 0x3E;
    StriderOperator* op = create(DML_OPERATOR_FILL_VALUE_CONSTANT, &constant);
    std::vector<uint16_t> y(h.bytes() / 2, 0xFFFF);
    CHECK(strider_operator_execute_bindings(op, nullptr, 0, std::vector<StriderBufferBinding>{bind(y.data(), h.bytes())}.data(), 1,
                                            nullptr) == STRIDER_OK);
    for (UINT r = 0; r < 3; r++)
        for (UINT c = 0; c < 8 && r * 8 + c < y.size(); c++) CHECK(y[r * 8 + c] == (c < 5 ? 0x3E00 : 0xFFFF));
    // The one-buffer entry point with no input.
    CHECK(strider_operator_execute(op, nullptr, 0, y.data(), h.bytes()) == STRIDER_OK);
    strider_operator_destroy(op);

    Tensor s(DML_TENSOR_DATA_TYPE_INT64, {2, 3}, {1, 2}); // column-major: indices count in C order over the sizes
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC seq = {&s.desc, DML_TENSOR_DATA_TYPE_INT64, {}, {}};
    seq.ValueStart.Int64 = -5;
    seq.ValueDelta.Int64 = 3;
    op = create(DML_OPERATOR_FILL_VALUE_SEQUENCE, &seq);
    int64_t z[6] = {};
    CHECK(strider_operator_execute(op, nullptr, 0, z, sizeof z) == STRIDER_OK);
    for (UINT r = 0; r < 2; r++)
        for (UINT c = 0; c < 3; c++) CHECK(z[r + 2 * c] == -5 + 3 * int64_t(r * 3 + c));
    strider_operator_destroy(op);
    Tensor f(DML_TENSOR_DATA_TYPE_FLOAT32, {5});
    DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC fseq = {&f.desc, DML_TENSOR_DATA_TYPE_FLOAT32, {}, {}};
    fseq.ValueStart.Float32 = 0.5f;
    fseq.ValueDelta.Float32 = 0.25f;
    op = create(DML_OPERATOR_FILL_VALUE_SEQUENCE, &fseq);
    float fz[5] = {};
    CHECK(strider_operator_execute(op, nullptr, 0, fz, sizeof fz) == STRIDER_OK);
    for (int i = 0; i < 5; i++) CHECK(fz[i] == 0.5f + 0.25f * float(i));
    strider_operator_destroy(op);
    fseq.ValueDataType = DML_TENSOR_DATA_TYPE_FLOAT64;
    DML_OPERATOR_DESC badOp = {DML_OPERATOR_FILL_VALUE_SEQUENCE, &fseq};
    CHECK_ERROR(strider_operator_create(&badOp, &op), STRIDER_INVALID_ARGUMENT,
                "ValueDataType is FLOAT64 (9) but the output is FLOAT32");
}

static void indexing() {
    // An embedding lookup: rows of a 5×3 table by int64 ids (negative from the end), into a padded output.
    Tensor table(DML_TENSOR_DATA_TYPE_FLOAT32, {5, 3}), ids(DML_TENSOR_DATA_TYPE_INT64, {1, 4}),
        out(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 3}, {4, 1});
    DML_GATHER_OPERATOR_DESC gather = {&table.desc, &ids.desc, &out.desc, 0, 1};
    StriderOperator* op = create(DML_OPERATOR_GATHER, &gather);
    std::vector<float> x(15), y(out.bytes() / 4, -1.0f);
    for (int i = 0; i < 15; i++) x[i] = float(i);
    int64_t id[4] = {4, 0, -1, 2};
    StriderBufferBinding ins[2] = {bind(x.data(), table.bytes()), bind(id, sizeof id)};
    StriderBufferBinding outs[1] = {bind(y.data(), out.bytes())};
    CHECK(strider_operator_execute_bindings(op, ins, 2, outs, 1, nullptr) == STRIDER_OK);
    for (UINT r = 0; r < 4; r++) {
        UINT row = UINT(id[r] < 0 ? id[r] + 5 : id[r]);
        for (UINT c = 0; c < 3; c++) CHECK(y[out.at({r, c})] == x[table.at({row, c})]);
        if (r < 3) CHECK(y[out.at({r, 0}) + 3] == -1.0f); // the padding is never written
    }
    // An index out of range: an error naming it, and nothing written.
    int64_t bad[4] = {0, 1, 5, 2};
    std::vector<float> before = y;
    ins[1] = bind(bad, sizeof bad);
    CHECK_ERROR(strider_operator_execute_bindings(op, ins, 2, outs, 1, nullptr), STRIDER_INVALID_ARGUMENT,
                "index 5 at coordinate [0, 2] of the indices (input 1) is outside a dimension of size 5");
    CHECK(y == before);
    strider_operator_destroy(op);

    // Gather elements (DirectML's example) and gather ND1 with a batch (its example 2).
    Tensor g3(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 3}), gi(DML_TENSOR_DATA_TYPE_UINT32, {2, 3}),
        go(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3});
    DML_GATHER_ELEMENTS_OPERATOR_DESC ge = {&g3.desc, &gi.desc, &go.desc, 0};
    op = create(DML_OPERATOR_GATHER_ELEMENTS, &ge);
    float gx[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, gy[6] = {};
    UINT gidx[6] = {1, 2, 0, 2, 0, 0};
    StriderBufferBinding gins[2] = {bind(gx, sizeof gx), bind(gidx, sizeof gidx)};
    StriderBufferBinding gouts[1] = {bind(gy, sizeof gy)};
    CHECK(strider_operator_execute_bindings(op, gins, 2, gouts, 1, nullptr) == STRIDER_OK);
    const float gwant[6] = {4, 8, 3, 7, 2, 3};
    CHECK(std::memcmp(gy, gwant, sizeof gy) == 0);
    strider_operator_destroy(op);
    Tensor nx(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 3, 2, 2}), ni(DML_TENSOR_DATA_TYPE_UINT32, {1, 3, 2, 2}),
        no(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 2});
    DML_GATHER_ND1_OPERATOR_DESC nd = {&nx.desc, &ni.desc, &no.desc, 3, 3, 1};
    op = create(DML_OPERATOR_GATHER_ND1, &nd);
    float ndx[12], ndy[6] = {};
    for (int i = 0; i < 12; i++) ndx[i] = float(i);
    UINT ndi[12] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0};
    StriderBufferBinding nins[2] = {bind(ndx, sizeof ndx), bind(ndi, sizeof ndi)};
    StriderBufferBinding nouts[1] = {bind(ndy, sizeof ndy)};
    CHECK(strider_operator_execute_bindings(op, nins, 2, nouts, 1, nullptr) == STRIDER_OK);
    const float ndwant[6] = {0, 3, 7, 4, 9, 10};
    CHECK(std::memcmp(ndy, ndwant, sizeof ndy) == 0);
    strider_operator_destroy(op);

    // Scatter elements with a duplicate index (the last update wins), into a new buffer and in place.
    Tensor sx(DML_TENSOR_DATA_TYPE_INT32, {1, 5}), si(DML_TENSOR_DATA_TYPE_INT32, {1, 3});
    DML_SCATTER_OPERATOR_DESC scatter = {&sx.desc, &si.desc, &si.desc, &sx.desc, 1};
    op = create(DML_OPERATOR_SCATTER, &scatter);
    int32_t data[5] = {1, 2, 3, 4, 5}, sidx[3] = {1, -1, 1}, upd[3] = {10, 20, 30}, sy[5] = {};
    StriderBufferBinding sins[3] = {bind(data, sizeof data), bind(sidx, sizeof sidx), bind(upd, sizeof upd)};
    StriderBufferBinding souts[1] = {bind(sy, sizeof sy)};
    CHECK(strider_operator_execute_bindings(op, sins, 3, souts, 1, nullptr) == STRIDER_OK);
    const int32_t swant[5] = {1, 30, 3, 4, 20};
    CHECK(std::memcmp(sy, swant, sizeof sy) == 0);
    souts[0] = bind(data, sizeof data);
    CHECK(strider_operator_execute_bindings(op, sins, 3, souts, 1, nullptr) == STRIDER_OK);
    CHECK(std::memcmp(data, swant, sizeof data) == 0);
    // In place with the updates inside the data buffer: refused.
    StriderBufferBinding overlap[3] = {bind(data, sizeof data), bind(sidx, sizeof sidx), bind(data + 1, 12)};
    CHECK_ERROR(strider_operator_execute_bindings(op, overlap, 3, souts, 1, nullptr), STRIDER_INVALID_ARGUMENT,
                "overlap");
    strider_operator_destroy(op);

    // Scatter ND (DirectML's example, rank 1 as rank 2) and one-hot with negative and out-of-range indices.
    Tensor ux(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 8}), ui(DML_TENSOR_DATA_TYPE_UINT32, {4, 1}),
        uu(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4});
    DML_SCATTER_ND_OPERATOR_DESC snd = {&ux.desc, &ui.desc, &uu.desc, &ux.desc, 1, 2};
    op = create(DML_OPERATOR_SCATTER_ND, &snd);
    float ud[8] = {1, 2, 3, 4, 5, 6, 7, 8}, uup[4] = {9, 10, 11, 12}, uy[8] = {};
    UINT uidx[4] = {4, 3, 1, 7};
    StriderBufferBinding uins[3] = {bind(ud, sizeof ud), bind(uidx, sizeof uidx), bind(uup, sizeof uup)};
    StriderBufferBinding uouts[1] = {bind(uy, sizeof uy)};
    CHECK(strider_operator_execute_bindings(op, uins, 3, uouts, 1, nullptr) == STRIDER_OK);
    const float uwant[8] = {1, 11, 3, 10, 9, 6, 7, 12};
    CHECK(std::memcmp(uy, uwant, sizeof uy) == 0);
    strider_operator_destroy(op);
    Tensor hi(DML_TENSOR_DATA_TYPE_INT32, {1, 1, 3, 1}), hv(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 2}),
        ho(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 4});
    DML_ONE_HOT_OPERATOR_DESC hot = {&hi.desc, &hv.desc, &ho.desc, 3};
    op = create(DML_OPERATOR_ONE_HOT, &hot);
    int32_t hidx[3] = {-3, 100, 3};
    float hval[2] = {0, 1}, hy[12];
    StriderBufferBinding hins[2] = {bind(hidx, sizeof hidx), bind(hval, sizeof hval)};
    StriderBufferBinding houts[1] = {bind(hy, sizeof hy)};
    CHECK(strider_operator_execute_bindings(op, hins, 2, houts, 1, nullptr) == STRIDER_OK);
    const float hwant[12] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    CHECK(std::memcmp(hy, hwant, sizeof hy) == 0);
    strider_operator_destroy(op);
    // Every rule reaches C as an error naming it.
    DML_GATHER_OPERATOR_DESC wide = {&table.desc, &ids.desc, &out.desc, 0, 3};
    DML_OPERATOR_DESC badGather = {DML_OPERATOR_GATHER, &wide};
    CHECK_ERROR(strider_operator_create(&badGather, &op), STRIDER_INVALID_ARGUMENT, "IndexDimensions is 3; it must be 0 to 2");
    Tensor oneValue(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 1, 1});
    DML_ONE_HOT_OPERATOR_DESC lonely = {&hi.desc, &oneValue.desc, &ho.desc, 3};
    DML_OPERATOR_DESC badValues = {DML_OPERATOR_ONE_HOT, &lonely};
    CHECK_ERROR(strider_operator_create(&badValues, &op), STRIDER_INVALID_ARGUMENT, "the number of values is 1");
    op = create(DML_OPERATOR_SCATTER_ND, &snd);
    UINT far[4] = {4, 3, 8, 7};
    std::memcpy(uy, ud, sizeof uy);
    uins[1] = bind(far, sizeof far);
    CHECK_ERROR(strider_operator_execute_bindings(op, uins, 3, uouts, 1, nullptr), STRIDER_INVALID_ARGUMENT,
                "index 8 at coordinate [2, 0] of the indices (input 1) is outside a dimension of size 8");
    CHECK(std::memcmp(uy, ud, sizeof uy) == 0);
    strider_operator_destroy(op);
    // Float indices are not indices.
    Tensor fi(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 1});
    hot.IndicesTensor = &fi.desc;
    DML_OPERATOR_DESC badHot = {DML_OPERATOR_ONE_HOT, &hot};
    CHECK_ERROR(strider_operator_create(&badHot, &op), STRIDER_UNSUPPORTED, "INT32, UINT32, INT64 or UINT64");
}

int main() {
    join_and_split();
    padding();
    tile_and_depth();
    fills();
    indexing();
    if (failures) {
        std::fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    std::printf("strider %s data-movement tests passed\n", strider_version());
    return 0;
}
