strider_kernels_macros::element_widths! { 1, 0, 4, 2, 4 }

fn main() {}
