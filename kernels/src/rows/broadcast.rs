//! Broadcast rows (input stride 0, output contiguous): one element repeated.

use core::ptr;

use super::{Body, elements};
use crate::arch::{Arch, stream_lines};

/// Output contiguous, input stride 0: the same element `len` times.
#[derive(Clone, Copy)]
pub(crate) struct BroadcastBody<A, const N: usize> {
    pub(crate) a: A,
    pub(crate) len: usize,
    /// Whole output lines store non-temporally (the strategy's policy); the run fences.
    pub(crate) stream: bool,
}

/// Bytes of [`BroadcastBody::fill`]'s pattern: a register of any phase of an element that divides a line.
const PATTERN_BYTES: usize = 128;

/// A line-aligned pattern buffer.
#[repr(C, align(64))]
struct Pattern([u8; PATTERN_BYTES]);

impl<A: Arch, const N: usize> BroadcastBody<A, N> {
    /// Fills `total` bytes (at least two registers) at `dst` with the element at `src` repeated, through registers
    /// of the repeated element: stores the pattern loaded at the byte phase of their offset (an element that divides
    /// a line repeats every N bytes), streaming the whole lines with `stream` (the partial first and last lines
    /// through regular stores, as [`crate::arch::copy`]).
    ///
    /// # Safety
    ///
    /// `src` holds a readable element; `dst..dst+total` is writable; `64 % N == 0`; `total ≥ 2·A::BYTES`.
    #[inline(always)]
    unsafe fn fill(&self, src: *const u8, dst: *mut u8, total: usize) {
        let (a, v) = (self.a, A::BYTES);
        let mut pattern = Pattern([0; PATTERN_BYTES]);
        let p = pattern.0.as_mut_ptr();
        // SAFETY: N ≤ 64 readable bytes at src (one element); the pattern holds 128 / N whole elements.
        unsafe {
            for k in 0..PATTERN_BYTES / N {
                ptr::copy_nonoverlapping(src, p.add(k * N), N);
            }
        }
        // The register to store at byte offset `at` of the row (v + N - 1 ≤ 128 bytes of the pattern).
        // SAFETY: at % N < N, so the load stays inside the 128-byte pattern (v ≤ 64).
        let reg = |at: usize| unsafe { a.load(p.add(at % N)) };
        if self.stream
            && let Some((head, end)) = stream_lines(dst as usize, total)
        {
            // SAFETY: [0, head) and [end, total) are under a line each, copied from the pattern at phase 0 and at
            // the phase of `end`; [head, end) is whole lines, a multiple of v long, streamed aligned.
            unsafe {
                a.small_copy(p, dst, head);
                let r = reg(head);
                let mut i = head;
                while i < end {
                    a.stream(dst.add(i), r);
                    i += v;
                }
                a.small_copy(p.add(end % N), dst.add(end), total - end);
            }
            return;
        }
        // SAFETY: registers at offsets 0, v, 2v, … while whole, then the last one ending at `total`, all inside the
        // row; every offset is a multiple of N (v and total are), so all take the pattern at phase 0.
        unsafe {
            let r = reg(0);
            let mut i = 0;
            while i + v <= total {
                a.store(dst.add(i), r);
                i += v;
            }
            a.store(dst.add(total - v), r);
        }
    }
}

impl<A: Arch, const N: usize> Body for BroadcastBody<A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        if N == 1 && !self.stream {
            // SAFETY: one readable byte at src, n writable bytes at dst (Rows contract).
            unsafe { ptr::write_bytes(dst, *src, n) };
            return;
        }
        if n <= 8 {
            // SAFETY: as above, element by element.
            unsafe { elements::<N>(src, dst, 0, n, 0, N as isize) };
            return;
        }
        let total = n * N;
        if 64 % N == 0 && A::BYTES >= 32 && total >= 2 * A::BYTES {
            // SAFETY: the row's element and output (Rows contract); N divides a line; two registers at least.
            unsafe { self.fill(src, dst, total) };
            return;
        }
        // PERF: write one element, then double the filled prefix with memcpy: log2(n) calls, each reading what was
        // just written (hot in L1), for any element width.
        // SAFETY: dst..dst+n·N is the row's output (Rows contract); each copy goes from the filled prefix to the
        // bytes right after it, never overlapping and never past the row.
        unsafe {
            dst.cast::<[u8; N]>().write_unaligned(src.cast::<[u8; N]>().read_unaligned());
            let mut filled = N;
            while filled < total {
                let c = filled.min(total - filled);
                ptr::copy_nonoverlapping(dst, dst.add(filled), c);
                filled += c;
            }
        }
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }
}
