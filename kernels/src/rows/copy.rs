//! Rows contiguous in both operands: one bulk copy per row, through the level's registers or, for long rows of
//! walks beyond L2, the CPU's string move (`arch::copy_strings`).

use super::{Body, lead_of};
use crate::arch::{Arch, copy, copy_strings};

/// A row of `len` contiguous elements of `bytes` bytes in both operands.
#[derive(Clone, Copy)]
pub(crate) struct CopyBody<A> {
    pub(crate) a: A,
    pub(crate) bytes: usize,
    pub(crate) len: usize,
    pub(crate) stream: bool,
    /// Runs of at least this many bytes may go through the CPU's string move ([`copy_strings`]); `None`: never
    /// (streamed rows).
    pub(crate) strings: Option<usize>,
}

impl<A: Arch> Body for CopyBody<A> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        let bytes = len * self.bytes;
        // SAFETY: the row's bytes are in bounds in both operands, which are distinct buffers (Rows contract).
        unsafe {
            // (A `match`, not a closure: level code stays in the level's function.)
            let strung = match self.strings {
                Some(min) => copy_strings(src, dst, bytes, min),
                None => false,
            };
            if !strung {
                copy(self.a, src, dst, bytes, self.stream)
            }
        }
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
