trait Row {
    unsafe fn row(&self, src: *const u8, dst: *mut u8);
}

strider_kernels_macros::loop_nests! { rows = Row; max_rank = 99; }

fn main() {}
