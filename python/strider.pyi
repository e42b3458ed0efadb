"""Strider: DirectML's copy-family operators on NumPy arrays of any strides, without copying them.

Every function takes arrays with any strides (views, transposes, negative strides) and releases the GIL while it
runs. `out=` takes any writable strided view of the right shape and dtype and is returned. `threads=None` uses
Strider's default pool, 1 the calling thread only, n a kept pool of n threads. Strider's errors are `ValueError`
with its message; a dtype problem raises `DTypeError`, which is both a `TypeError` and a `ValueError`.
"""

from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

class DTypeError(TypeError, ValueError):
    """A dtype Strider does not take here (an unsupported dtype, an `out` of another dtype, scale/bias on
    integers)."""

DTypeLike = npt.DTypeLike
Floats = Union[float, Sequence[float]]

def slice1(x: npt.ArrayLike, offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int], *,
           out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """DML_SLICE1: the window of `x` starting at `offsets`, `sizes` long, read with `strides` (a negative stride
    reads from the window's end). The output's shape is `1 + (sizes[i] - 1) // abs(strides[i])` per axis; a new
    C-ordered array, or `out`."""

def slice(x: npt.ArrayLike, offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int], *,
          out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """DML_SLICE: output element `c` is `x[offsets + strides * c]`; the output's shape is `sizes`."""

def identity(x: npt.ArrayLike, out: np.ndarray, *, scale: Optional[float] = None, bias: Optional[float] = None,
             threads: Optional[int] = None) -> np.ndarray:
    """Copies `x` into `out` (same shape and dtype, any layouts: a layout change), optionally `x * scale + bias`
    (float dtypes; product then sum, each rounded in float32, or float64 for float64). `out` may be `x` itself."""

def cast(x: npt.ArrayLike, dtype: DTypeLike, *, out: Optional[np.ndarray] = None,
         threads: Optional[int] = None) -> np.ndarray:
    """DML_CAST: `x` converted to `dtype` by Rust's `as` rules (integers wrap, floats to integers truncate and
    saturate, NaN to 0; to float16 rounded once from the exact value)."""

def normalize(x: npt.ArrayLike, dtype: DTypeLike, *, mean: Floats, std: Floats, channel_axis: Optional[int],
              offsets: Optional[Sequence[int]] = None, sizes: Optional[Sequence[int]] = None,
              strides: Optional[Sequence[int]] = None, layout: Optional[str] = None,
              out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """The fused preprocessing operator: `(window(x) - mean[k]) / std[k]` converted to `dtype`, in one pass.

    `mean` and `std` are in x's own units (0..255 for uint8 images), one value or one per channel; `k` is the
    index along `channel_axis` (an axis of x, negative counts from the end; None: one mean and std). The window is
    slice1's (default: all of x). Computed as `x * (1/std) + (-mean/std)` in float32, each parameter rounded once
    from float64.

    `layout` is the axis order of the returned array: None keeps x's ("nhwc" in, "nhwc" out), "nchw" moves the
    channel axis after the batch axis (first for 3 dimensions or fewer: HWC → CHW), "nhwc" moves it last. So an
    NHWC uint8 batch becomes the NCHW float32 batch a PyTorch model takes with
    `strider.normalize(batch, np.float32, mean=..., std=..., channel_axis=3, layout="nchw")`. With `out=`, the
    result's layout is out's own (any strides; give out in x's axis order, e.g. a transposed view)."""

def normalize_image(images: npt.ArrayLike, dtype: Optional[DTypeLike] = None, *, mean: Optional[Floats] = None,
                    std: Optional[Floats] = None, imagenet: bool = False,
                    center_crop: Optional[Union[int, tuple[int, int]]] = None,
                    crop: Optional[tuple[int, int, int, int]] = None,
                    subsample: Optional[Union[int, tuple[int, int]]] = None, flip_horizontal: bool = False,
                    flip_vertical: bool = False, channels: Optional[tuple[int, int]] = None,
                    reverse_channels: bool = False, channels_last: bool = True, layout: str = "nchw",
                    out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """Decoded images to a model's input in one pass: crop, flips, channel selection and order, mean/std, cast and
    layout (torchvision's CenterCrop + ToTensor + Normalize; the Rust builder `Normalize::image`).

    `images` is `(H, W, C)` or `(N, H, W, C)` (`channels_last=True`, decoders' layout) or `(C, H, W)` /
    `(N, C, H, W)`. `mean` and `std` are in 0..1 units (1 = the input type's maximum for unsigned integers, 255 for
    uint8): `y = (x / unit - mean) / std`; `imagenet=True` takes ImageNet's RGB statistics; with neither, values are
    only converted. `center_crop` (int or (height, width)) or `crop` (top, left, height, width); `subsample` keeps
    every n-th row and column; `channels=(first, count)` keeps some channels; `reverse_channels` swaps BGR and RGB
    (mean and std in the result's order). `dtype` defaults to float32, `layout` to "nchw" ("nhwc" for channels
    last); `out` is in that layout."""

def resize(x: npt.ArrayLike, size: Union[int, tuple[int, int]], filter: str = "bilinear", antialias: bool = True,
           out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """Images resized as Pillow's `Image.resize` (`antialias=True`) or OpenCV's `cv2.resize` (`antialias=False`).

    `x` is `(H, W)`, `(H, W, C)` or `(N, H, W, C)`, uint8, float16 or float32, any strides; `size` the result's
    `(height, width)` (or one int for both); `filter` "nearest", "bilinear", "bicubic" or "area" (Pillow's BOX,
    OpenCV's INTER_AREA). The result has x's dtype and axis order; uint8 results are within 1 of Pillow's, OpenCV's
    and torchvision's."""

def letterbox_geometry(image_hw: tuple[int, int], size: Union[int, tuple[int, int]]
                       ) -> tuple[float, int, int, int, int]:
    """YOLO's letterbox of an `(H, W)` image on an `(h, w)` canvas: `(scale, top, left, new_h, new_w)`, scale =
    min(h/H, w/W), the new size rounded half to even, centered (odd padding at the bottom and right)."""

def preprocess(images: Union[npt.ArrayLike, Sequence[npt.ArrayLike]], size: Union[None, int, tuple[int, int]], *,
               resize: Optional[str] = "stretch", crop: Union[None, int, tuple[int, int]] = None,
               filter: str = "bilinear", antialias: bool = True, flip: bool = False, bgr_to_rgb: bool = False,
               mean: Union[None, float, Sequence[float]] = None, std: Union[None, float, Sequence[float]] = None,
               pad_value: float = 0, dtype: npt.DTypeLike = np.float32, layout: str = "nchw",
               out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """Decoded images to a model's input in one pass per image: resize (`resize` "stretch" to `size`, "shorter":
    the shorter side to `size` keeping the aspect ratio, "letterbox" into a `size` canvas padded with `pad_value`, or
    None), center `crop`, horizontal `flip`, BGR -> RGB, `(x - mean) / std` in input units, cast to `dtype`, layout
    "nchw" or "nhwc". `images`: `(N, H, W, C)`, a list of `(H, W, C)` images of any sizes, or one `(H, W, C)` image
    (the result then has no N axis). The resized pixels stay float32 inside the pass."""

Number = Union[int, float]

def pad(x: npt.ArrayLike, start: Sequence[int], end: Sequence[int], mode: str = "constant", value: Number = 0, *,
        out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """DML_PADDING1: `np.pad(x, zip(start, end), mode)`, one start and end per axis. `mode` is "constant" (with
    `value`), "edge", "reflect", "symmetric" or "wrap"; borders wider than `x` fold as NumPy's do. `value` (an int is
    taken as a 64-bit integer, a float as a float64) converts to x's dtype by `cast`'s rules."""

def join(arrays: Sequence[npt.ArrayLike], axis: int = 0, *, out: Optional[np.ndarray] = None,
         threads: Optional[int] = None) -> np.ndarray:
    """DML_JOIN: `np.concatenate(arrays, axis)` (one dtype; shapes equal but along `axis`, which may be negative)."""

def split(x: npt.ArrayLike, sizes: Sequence[int], axis: int = 0, *, outs: Optional[Sequence[np.ndarray]] = None,
          threads: Optional[int] = None) -> list[np.ndarray]:
    """DML_SPLIT: consecutive blocks of `x` along `axis`, block k `sizes[k]` long (the sizes add up to
    `x.shape[axis]`); new arrays (never views of x), or `outs` filled and returned."""

def tile(x: npt.ArrayLike, repeats: Sequence[int], *, out: Optional[np.ndarray] = None,
         threads: Optional[int] = None) -> np.ndarray:
    """DML_TILE: `np.tile(x, repeats)` with exactly one repeat (at least 1) per axis."""

def depth_to_space(x: npt.ArrayLike, block_size: int, mode: str = "DCR", *, out: Optional[np.ndarray] = None,
                   threads: Optional[int] = None) -> np.ndarray:
    """DML_DEPTH_TO_SPACE1 of an NCHW array: ONNX DepthToSpace, "DCR" or "CRD" (`torch.pixel_shuffle`)."""

def space_to_depth(x: npt.ArrayLike, block_size: int, mode: str = "DCR", *, out: Optional[np.ndarray] = None,
                   threads: Optional[int] = None) -> np.ndarray:
    """DML_SPACE_TO_DEPTH1: the inverse of `depth_to_space` with the same block size and mode."""

def fill(out: np.ndarray, value: Number, *, threads: Optional[int] = None) -> np.ndarray:
    """DML_FILL_VALUE_CONSTANT: every element of `out` set to `value` (converted by `cast`'s rules); returns out."""

def fill_sequence(out: np.ndarray, start: Number, delta: Number, *, threads: Optional[int] = None) -> np.ndarray:
    """DML_FILL_VALUE_SEQUENCE: element i of `out` (its index in C order over the shape, whatever the strides) set
    to `start + i * delta`: integers in the dtype's wrapping arithmetic, floats computed in float64 from the exact
    arguments and rounded once; returns out."""

def calc_buffer_tensor_size(dtype: DTypeLike, sizes: Sequence[int], strides: Optional[Sequence[int]] = None) -> int:
    """DMLCalcBufferTensorSize: the bytes through the last element of the tensor, rounded up to a multiple of 4."""

def info() -> dict[str, Any]:
    """`version`, `isa` (the instruction set used), `isas` (all available), `threads` (the default pool's size),
    `max_threads`."""

class Operator:
    """An operator planned once per array layout and called many times."""
    def __call__(self, x: npt.ArrayLike, out: Optional[np.ndarray] = None, *,
                 threads: Optional[int] = None) -> np.ndarray: ...

def Slice1(offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> Operator:
    """A reusable `slice1`: `op = strider.Slice1(offsets, sizes, strides); y = op(x)`."""

def Slice(offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> Operator:
    """A reusable `slice`."""

def Identity(*, scale: Optional[float] = None, bias: Optional[float] = None) -> Operator:
    """A reusable `identity`: call it as `op(x, out)`."""

def Cast(dtype: DTypeLike) -> Operator:
    """A reusable `cast`."""

def Normalize(dtype: DTypeLike, *, mean: Floats, std: Floats, channel_axis: Optional[int],
              offsets: Optional[Sequence[int]] = None, sizes: Optional[Sequence[int]] = None,
              strides: Optional[Sequence[int]] = None, layout: Optional[str] = None) -> Operator:
    """A reusable `normalize` (a negative `channel_axis` needs the window); `layout` as `normalize`'s."""
