//! `include/strider.h` is generated from this crate by cbindgen and committed; this test regenerates it and fails
//! when the committed copy is stale. `STRIDER_BLESS=1` rewrites it instead.

use std::path::Path;

#[test]
fn header_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen parses capi/src")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8 header");
    let path = dir.join("include/strider.h");
    if std::env::var_os("STRIDER_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/strider.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "capi/include/strider.h is stale: run `STRIDER_BLESS=1 cargo test -p strider-capi --test header` and commit it"
    );
}

#[test]
fn pkg_config_template_has_the_crate_version() {
    let template = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("strider.pc.in")).unwrap();
    let version = format!("\nVersion: {}\n", env!("CARGO_PKG_VERSION"));
    assert!(template.contains(&version), "capi/strider.pc.in must say{version}");
}
