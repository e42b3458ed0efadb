//! Broadcast rows (input stride 0, output contiguous): one element repeated.

use core::ptr;

use super::{Body, elements};
use crate::arch::Arch;

/// Output contiguous, input stride 0: the same element `len` times.
#[derive(Clone, Copy)]
pub(crate) struct BroadcastBody<A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
}

impl<A: Arch, const N: usize> Body for BroadcastBody<A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        if N == 1 {
            // SAFETY: one readable byte at src, n writable bytes at dst (Rows contract).
            unsafe { ptr::write_bytes(dst, *src, n) };
            return;
        }
        if n <= 8 {
            // SAFETY: as above, element by element.
            unsafe { elements::<N>(src, dst, 0, n, 0, N as isize) };
            return;
        }
        // PERF: write one element, then double the filled prefix with memcpy: log2(n) calls, each reading what was
        // just written (hot in L1), for any element width.
        // SAFETY: dst..dst+n·N is the row's output (Rows contract); each copy goes from the filled prefix to the
        // bytes right after it, never overlapping and never past the row.
        unsafe {
            dst.cast::<[u8; N]>().write_unaligned(src.cast::<[u8; N]>().read_unaligned());
            let total = n * N;
            let mut filled = N;
            while filled < total {
                let c = filled.min(total - filled);
                ptr::copy_nonoverlapping(dst, dst.add(filled), c);
                filled += c;
            }
        }
    }
}
