//! Rows contiguous in both operands: one bulk copy per row through the level's registers.

use super::{Body, lead_of};
use crate::arch::{Arch, copy};

/// A row of `len` contiguous elements of `bytes` bytes in both operands.
#[derive(Clone, Copy)]
pub(crate) struct CopyBody<A> {
    pub(crate) a: A,
    pub(crate) bytes: usize,
    pub(crate) len: usize,
    pub(crate) stream: bool,
}

impl<A: Arch> Body for CopyBody<A> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        // SAFETY: the row's bytes are in bounds in both operands, which are distinct buffers (Rows contract).
        unsafe { copy(self.a, src, dst, len * self.bytes, self.stream) }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        lead_of::<1>(self.len * self.bytes, 1)
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }
}
