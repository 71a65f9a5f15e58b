//! The prost code in `src/prost_gen/` is generated from `proto/*.proto` with protox + prost-build
//! (no system `protoc`). This test regenerates it and fails if the checked-in copy is stale.
//! To rewrite the checked-in files:
//! `TRACECAP_REGENERATE=1 cargo test -p tracecap-orbit --test prost_fresh`.

use std::path::Path;

#[test]
fn generated_prost_code_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let proto = root.join("proto");
    let fds = protox::compile(
        [
            "capture.proto",
            "module.proto",
            "tracepoint.proto",
            "user_defined_capture_info.proto",
        ],
        [&proto],
    )
    .expect("the .proto files compile");
    let out = tracecap_testkit::TempDir::new("orbit-prost");
    let mut config = prost_build::Config::new();
    config.out_dir(out.to_path_buf());
    config.compile_fds(fds).expect("prost-build generates code");
    let mut stale = Vec::new();
    for name in ["orbit_grpc_protos.rs", "orbit_client_protos.rs"] {
        let fresh = std::fs::read_to_string(out.join(name)).expect("generated file");
        let checked_in = root.join("src/prost_gen").join(name);
        if std::env::var_os("TRACECAP_REGENERATE").is_some() {
            std::fs::write(&checked_in, &fresh).expect("write generated code");
            continue;
        }
        let old = std::fs::read_to_string(&checked_in).unwrap_or_default();
        if old != fresh {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated prost code {stale:?}: rewrite it with\n    TRACECAP_REGENERATE=1 cargo test -p tracecap-orbit --test prost_fresh"
    );
}
