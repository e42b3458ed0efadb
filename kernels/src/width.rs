//! The element widths the kernels are specialized for.
//!
//! 1, 2, 4 and 8 bytes are the data types; 3, 6, 12 and 16 are small contiguous groups the planner folds into one
//! wider element for pure copies (the 3 bytes of an RGB pixel, 3×u16, 3×f32, 4×f32), so that flipping or
//! subsampling an interleaved image runs one kernel over pixels instead of a tiny copy per pixel.

strider_kernels_macros::element_widths! { 1, 2, 3, 4, 6, 8, 12, 16 }
