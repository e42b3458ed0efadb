//! Rows with any strides: one unaligned element load and store at a time.

use super::{Body, elements};
use crate::arch::Arch;

/// Any strides: one unaligned `N`-byte load and store per element.
#[derive(Clone, Copy)]
pub(crate) struct StridedBody<A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
    pub(crate) in_stride: isize,
    pub(crate) out_stride: isize,
}

impl<A: Arch, const N: usize> Body for StridedBody<A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        // SAFETY: every element of the row is in bounds (Rows contract).
        unsafe { elements::<N>(src, dst, 0, n, self.in_stride, self.out_stride) }
    }
}
