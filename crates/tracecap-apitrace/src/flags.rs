//! Call flags apitrace derives from function names (frame ends, markers), and the API guess.

/// The call ends a frame (a swap-buffers or present call).
pub const END_FRAME: u32 = 1 << 5;
/// The call swaps render targets.
pub const SWAP_RENDERTARGET: u32 = 1 << 4;
/// The call opens a debug group (marker push).
pub const MARKER_PUSH: u32 = 1 << 9;
/// The call closes a debug group (marker pop).
pub const MARKER_POP: u32 = 1 << 10;
/// The call inserts an instant marker.
pub const MARKER: u32 = 1 << 8;

const SWAPS: &[&[u8]] = &[
    b"glXSwapBuffers",
    b"glXSwapBuffersMscOML",
    b"eglSwapBuffers",
    b"eglSwapBuffersWithDamageEXT",
    b"eglSwapBuffersWithDamageKHR",
    b"wglSwapBuffers",
    b"wglSwapLayerBuffers",
    b"wglSwapMultipleBuffers",
    b"IDirect3DDevice8::Present",
    b"IDirect3DDevice9::Present",
    b"IDirect3DDevice9Ex::Present",
    b"IDirect3DDevice9Ex::PresentEx",
    b"IDirect3DSwapChain9::Present",
    b"IDirect3DSwapChain9Ex::Present",
];

const FRAME_ENDS: &[&[u8]] = &[
    b"CGLFlushDrawable",
    b"glFrameTerminatorGREMEDY",
    b"IDirect3DDevice9::GetRenderTargetData",
    b"IDirect3DDevice9Ex::GetRenderTargetData",
];

const PUSHES: &[&[u8]] = &[
    b"glPushDebugGroup",
    b"glPushDebugGroupKHR",
    b"glPushGroupMarkerEXT",
    b"D3DPERF_BeginEvent",
    b"ID3DUserDefinedAnnotation::BeginEvent",
];

const POPS: &[&[u8]] = &[
    b"glPopDebugGroup",
    b"glPopDebugGroupKHR",
    b"glPopGroupMarkerEXT",
    b"D3DPERF_EndEvent",
    b"ID3DUserDefinedAnnotation::EndEvent",
];

const MARKERS: &[&[u8]] = &[
    b"glDebugMessageInsert",
    b"glDebugMessageInsertAMD",
    b"glDebugMessageInsertARB",
    b"glDebugMessageInsertKHR",
    b"glInsertEventMarkerEXT",
    b"glStringMarkerGREMEDY",
    b"D3DPERF_SetMarker",
    b"ID3DUserDefinedAnnotation::SetMarker",
];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `IDXGI(Decode)?SwapChain\w*::Present\w*`, matched on the whole name.
fn is_dxgi_present(name: &[u8]) -> bool {
    let rest = match name.strip_prefix(b"IDXGI") {
        Some(r) => r,
        None => return false,
    };
    let rest = rest.strip_prefix(b"Decode").unwrap_or(rest);
    let rest = match rest.strip_prefix(b"SwapChain") {
        Some(r) => r,
        None => return false,
    };
    let word = rest.iter().take_while(|&&b| is_word(b)).count();
    let rest = rest.get(word..).unwrap_or(&[]);
    match rest.strip_prefix(b"::Present") {
        Some(r) => r.iter().all(|&b| is_word(b)),
        None => false,
    }
}

/// The flags apitrace gives a call to `name` (frame ends and markers; render and verbose
/// classification is not derived).
pub fn call_flags(name: &[u8]) -> u32 {
    if SWAPS.contains(&name) {
        END_FRAME | SWAP_RENDERTARGET
    } else if FRAME_ENDS.contains(&name) || is_dxgi_present(name) {
        END_FRAME
    } else if PUSHES.contains(&name) {
        MARKER | MARKER_PUSH
    } else if POPS.contains(&name) {
        MARKER | MARKER_POP
    } else if MARKERS.contains(&name) {
        MARKER
    } else {
        0
    }
}

/// The API apitrace guesses from the first function signature that decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// Not decided (no function name matched).
    Unknown,
    /// OpenGL through GLX, WGL or CGL.
    Gl,
    /// OpenGL / GLES through EGL.
    Egl,
    /// Direct3D / DirectX.
    Dx,
}

impl Api {
    /// What a function name says about the API, if anything.
    pub fn from_name(n: &[u8]) -> Api {
        let upper = |i: usize| n.get(i).is_some_and(|b| b.is_ascii_uppercase());
        if n.starts_with(b"glX") || (n.starts_with(b"wgl") && upper(3)) || n.starts_with(b"CGL") {
            Api::Gl
        } else if n.starts_with(b"egl") && upper(3) {
            Api::Egl
        } else if n.starts_with(b"Direct") || n.starts_with(b"D3D") || n.starts_with(b"Create") {
            Api::Dx
        } else {
            Api::Unknown
        }
    }

    /// The text `apitrace info` prints for it.
    pub fn label(self) -> &'static str {
        match self {
            Api::Unknown => "Unknown",
            Api::Gl => "OpenGL + GLX/WGL/CGL",
            Api::Egl => "OpenGL/GLES1/GLES2/VG + EGL",
            Api::Dx => "DirectX",
        }
    }
}
