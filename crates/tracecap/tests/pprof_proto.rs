//! The checked-in pprof message code is what prost-build generates from proto/profile.proto
//! (compiled by protox, no system protoc). Run with TRACECAP_REGENERATE=1 to rewrite it.

use std::path::Path;

#[test]
fn generated_code_is_fresh() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fds = protox::compile(["profile.proto"], [dir.join("proto")]).expect("proto compiles");
    let out = std::env::temp_dir().join(format!("tracecap-pprof-prost-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    prost_build::Config::new()
        .out_dir(&out)
        .compile_fds(fds)
        .expect("prost-build generates");
    let fresh = std::fs::read_to_string(out.join("perftools.profiles.rs")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let checked_in = dir.join("src/export/pprof_generated.rs");
    if std::env::var_os("TRACECAP_REGENERATE").is_some() {
        std::fs::write(&checked_in, &fresh).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&checked_in).unwrap_or_default();
    assert!(
        current == fresh,
        "src/export/pprof_generated.rs is stale: rerun with TRACECAP_REGENERATE=1"
    );
}
