strider_kernels_macros::loop_nests! { max_rank = 3; }

fn main() {}
